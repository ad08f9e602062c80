/// A broker address: `mqtt://host[:port]` (plain TCP, default 1883) or
/// `mqtts://host[:port]` (TLS, default 8883). IPv6 literals go in brackets.
public struct MQTTURL: Sendable, Hashable, CustomStringConvertible {
    public var tls: Bool
    public var host: String
    public var port: Int

    public static let defaultPort = 1883
    public static let defaultTLSPort = 8883

    public init(tls: Bool = false, host: String, port: Int? = nil) {
        self.tls = tls
        self.host = host
        self.port = port ?? (tls ? Self.defaultTLSPort : Self.defaultPort)
    }

    public init(parsing text: String) throws(MQTTError) {
        func fail(_ reason: String) -> MQTTError { .invalidURL(text, reason: reason) }

        let trimmed = text.trimmingWhitespace()
        guard let schemeEnd = trimmed.firstRange(of: "://") else {
            throw fail("expected mqtt://host:port or mqtts://host:port")
        }
        let tls: Bool
        switch trimmed[..<schemeEnd.lowerBound].lowercased() {
        case "mqtt": tls = false
        case "mqtts": tls = true
        case let other: throw fail("unsupported scheme '\(other)', use mqtt:// or mqtts://")
        }

        var rest = trimmed[schemeEnd.upperBound...]
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        // Credentials in a URL end up in shell history and logs: docs/configuration.md "Configuration" keeps them in broker.username and broker.password_file.
        guard !rest.contains("@") else {
            throw fail("credentials do not belong in the URL; use broker.username and broker.password_file")
        }
        guard !rest.contains(where: { "/?#".contains($0) }) else {
            throw fail("a broker URL has no path, query or fragment")
        }

        let host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("unclosed '[' in IPv6 address") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("unexpected text after ']'") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
            guard !portText!.contains(":") else { throw fail("put an IPv6 address in brackets: mqtt://[::1]:1883") }
        } else {
            host = rest
        }
        guard !host.isEmpty else { throw fail("missing host") }

        var port: Int?
        if let portText {
            guard let value = Int(portText), (1...65_535).contains(value) else {
                throw fail("port must be a number from 1 to 65535, got '\(portText)'")
            }
            port = value
        }
        self.init(tls: tls, host: String(host), port: port)
    }

    public var description: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(tls ? "mqtts" : "mqtt")://\(shownHost):\(port)"
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }),
              let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return self[first...last]
    }
}
