import FleetFenceCodecs

/// RFC 3339 times (docs/topics-and-payloads.md "Topics and payloads": `ts` may be one): a time that parses is finite, within the
/// four-digit years give or take a day of offset, formats as 24 characters and parses back to the same
/// millisecond; the `String` and the byte entry points agree.
enum RFC3339Checks {
    static func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        let seconds = RFC3339.parse(bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        if text.utf8.elementsEqual(bytes) {
            let fromString = RFC3339.parse(text)
            try require(fromString?.bitPattern == seconds?.bitPattern, "String gives \(String(describing: fromString)), bytes \(String(describing: seconds))")
        }
        guard let seconds else { return }
        try require(seconds.isFinite && seconds >= RFC3339.minSeconds - 86_400 && seconds <= RFC3339.maxSeconds + 86_400,
                    "\(text.debugDescription) read as \(seconds)")
        guard seconds >= RFC3339.minSeconds, seconds <= RFC3339.maxSeconds else { return }
        let formatted = RFC3339.format(seconds)
        try require(formatted.utf8.count == RFC3339.formattedLength, "\(seconds) formatted as \(formatted)")
        guard let again = RFC3339.parse(formatted) else {
            throw InvariantViolation("\(text.debugDescription) read as \(seconds), formatted as \(formatted), which does not parse")
        }
        try require(abs(again - seconds) <= 0.0005 + seconds.ulp * 4,
                    "\(text.debugDescription) read as \(seconds), formatted as \(formatted), read back as \(again)")
    }
}
