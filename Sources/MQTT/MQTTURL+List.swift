extension MQTTURL {
    /// Broker URLs separated by commas: the nodes of one cluster, tried in order (docs/several-instances.md "Several
    /// instances"), as `--broker` of `fleetfence serve` and `fleetsim` takes them.
    public static func list(parsing text: String) throws(MQTTError) -> [MQTTURL] {
        let parts = text.split(separator: ",").filter { $0.contains { !$0.isWhitespace } }
        guard !parts.isEmpty else { throw .invalidURL(text, reason: "no broker URL") }
        var urls: [MQTTURL] = []
        for part in parts { urls.append(try MQTTURL(parsing: String(part))) }
        return urls
    }
}

extension MQTTOptions {
    /// `urls[0]` first, the others as ``failoverURLs``.
    public mutating func setBrokers(_ urls: [MQTTURL]) {
        precondition(!urls.isEmpty, "at least one broker")
        url = urls[0]
        failoverURLs = Array(urls.dropFirst())
    }
}
