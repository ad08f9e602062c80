/// MQTT topic filter matching (`+` one level, `#` this level and all below), without
/// allocating: consumers use it to route messages from several subscriptions.
public enum MQTTTopicFilter {
    public static func matches(_ filter: String, topic: String) -> Bool {
        let filterBytes = filter.utf8, topicBytes = topic.utf8
        let slash = UInt8(ascii: "/")
        // Topics starting with '$' belong to the broker; a wildcard in the first level
        // does not match them (MQTT 3.1.1, 4.7.2).
        if topicBytes.first == UInt8(ascii: "$"),
           filterBytes.first == UInt8(ascii: "+") || filterBytes.first == UInt8(ascii: "#") {
            return false
        }
        var filterPosition: String.UTF8View.Index? = filterBytes.startIndex
        var topicPosition: String.UTF8View.Index? = topicBytes.startIndex
        while let filterStart = filterPosition {
            let filterEnd = filterBytes[filterStart...].firstIndex(of: slash) ?? filterBytes.endIndex
            let level = filterBytes[filterStart..<filterEnd]
            filterPosition = filterEnd == filterBytes.endIndex ? nil : filterBytes.index(after: filterEnd)
            // "a/#" matches "a" and everything below it.
            if level.elementsEqual("#".utf8) { return true }
            guard let topicStart = topicPosition else { return false }
            let topicEnd = topicBytes[topicStart...].firstIndex(of: slash) ?? topicBytes.endIndex
            topicPosition = topicEnd == topicBytes.endIndex ? nil : topicBytes.index(after: topicEnd)
            if !level.elementsEqual("+".utf8), !level.elementsEqual(topicBytes[topicStart..<topicEnd]) {
                return false
            }
        }
        return topicPosition == nil
    }
}
