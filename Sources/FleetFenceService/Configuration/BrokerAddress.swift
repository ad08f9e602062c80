import Foundation

/// Where the broker is, parsed from `broker.url` (`mqtt://host[:port]` or `mqtts://host[:port]`).
public struct BrokerAddress: Sendable, Equatable {
    public var host: String
    /// 1883 for `mqtt://`, 8883 for `mqtts://` unless the URL says otherwise.
    public var port: Int
    public var usesTLS: Bool

    public struct ParseError: Error, Equatable {
        public var message: String
    }

    public init(host: String, port: Int, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    public init(url: String) throws(ParseError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw ParseError(message: "not a URL: \(url)")
        }
        guard scheme == "mqtt" || scheme == "mqtts" else {
            throw ParseError(message: "scheme must be mqtt:// or mqtts://, got \(scheme):// in \(url)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ParseError(message: "no host in \(url)")
        }
        // A password in the URL would arrive through a flag or a process listing; the contract forbids that.
        guard components.user == nil, components.password == nil else {
            throw ParseError(message: "credentials go in broker.username and broker.password_file, not in the URL")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil
        else {
            throw ParseError(message: "only scheme, host and port are allowed in \(url)")
        }
        let usesTLS = scheme == "mqtts"
        let port = components.port ?? (usesTLS ? 8883 : 1883)
        guard (1...65_535).contains(port) else {
            throw ParseError(message: "port \(port) is out of range in \(url)")
        }
        // URLComponents keeps IPv6 brackets; the socket layer wants the bare address.
        let bareHost = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.init(host: bareHost, port: port, usesTLS: usesTLS)
    }
}
