/// Everything the MQTT layer can throw. Each case reads as a sentence for an operator.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broker URL could not be parsed.
    case invalidURL(String, reason: String)
    /// An option is out of range or inconsistent (e.g. a persistent session without client id).
    case invalidOptions(String)
    /// `connect` was called while the client is already running.
    case alreadyStarted
    /// The broker answered CONNACK with a refusal (bad credentials, not authorised, ...).
    case refused(reason: String, code: Int32)
    /// No MQTT connection could be made: DNS failure, nothing listening, network down.
    case unreachable(host: String, port: Int, reason: String)
    /// The TLS handshake or certificate verification failed.
    case tls(host: String, port: Int, reason: String)
    /// No CONNACK arrived within the connect timeout.
    case timedOut(host: String, port: Int, after: Duration)
    /// `disconnect()` or task cancellation ended a connect attempt.
    case cancelled
    /// A libmosquitto call failed in a way none of the above describes.
    case library(function: String, code: Int32, reason: String)

    public var description: String {
        switch self {
        case let .invalidURL(text, reason):
            "invalid broker URL '\(text)': \(reason)"
        case let .invalidOptions(reason):
            "invalid MQTT options: \(reason)"
        case .alreadyStarted:
            "the MQTT client is already connected or connecting"
        case let .refused(reason, code):
            "the broker refused the connection: \(reason) (CONNACK \(code))"
        case let .unreachable(host, port, reason):
            "cannot reach the MQTT broker at \(host):\(port): \(reason)"
        case let .tls(host, port, reason):
            "TLS with the MQTT broker at \(host):\(port) failed: \(reason)"
        case let .timedOut(host, port, after):
            "no answer from the MQTT broker at \(host):\(port) within \(after)"
        case .cancelled:
            "the MQTT connect attempt was cancelled"
        case let .library(function, code, reason):
            "\(function) failed: \(reason) (\(code))"
        }
    }
}
