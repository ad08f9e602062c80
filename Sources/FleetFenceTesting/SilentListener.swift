import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP port that accepts connections (the kernel completes the handshake)
/// but never answers: for testing connect timeouts without a real network.
public final class SilentListener: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        (descriptor, port) = try LoopbackSocket.bound(listening: true)
    }

    deinit {
        close(descriptor)
    }
}
