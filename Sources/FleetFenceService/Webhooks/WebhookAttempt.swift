import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore

/// One HTTP attempt of one delivery, and what its answer means (docs/webhooks.md "Webhooks").
struct WebhookAttempt {
    enum Outcome: Equatable {
        case delivered(status: Int)
        /// A connection error, a timeout, 408, 429 or a 5xx; `retryAfter` from a 429 or 503.
        case retry(reason: String, retryAfter: Double?)
        /// Any other answer: trying again would get the same.
        case dead(reason: String)
    }

    /// The headers of a delivery: the same `FleetFence-Delivery` on every attempt, so that the
    /// receiver drops repeats by it; with a secret, a signature of "<timestamp>.<body>".
    static func headers(
        for delivery: (event: String, device: String, seq: Int64), body: [UInt8], secret: [UInt8]?, now: Double
    ) -> [(String, String)] {
        var headers = [
            ("Content-Type", "application/json"), ("FleetFence-Event", delivery.event),
            ("FleetFence-Delivery", headerSafe("\(delivery.device)/\(delivery.seq)")), ("User-Agent", "FleetFence-Webhooks"),
        ]
        if let secret {
            let timestamp = String(Int64(now.rounded(.down)))
            headers.append(("FleetFence-Timestamp", timestamp))
            headers.append(("FleetFence-Signature", "sha256=" + signature(timestamp: timestamp, body: body, secret: secret)))
        }
        return headers
    }

    /// `text` with control characters (which a header value cannot carry, and a device id in
    /// principle may) percent-encoded, and `%` itself, so that no two ids give one value (`x%01`
    /// and `x` + U+0001 did); everything else as it is.
    static func headerSafe(_ text: String) -> String {
        func encoded(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") }
        guard text.utf8.contains(where: encoded) else { return text }
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            if encoded(byte) {
                bytes += Array(String(format: "%%%02X", byte).utf8)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Hex HMAC-SHA256 of "<timestamp>.<body>" keyed with the secret file's content.
    static func signature(timestamp: String, body: [UInt8], secret: [UInt8]) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: secret))
        mac.update(data: Array(timestamp.utf8) + [UInt8(ascii: ".")])
        mac.update(data: body)
        return Array(mac.finalize()).lowercaseHex
    }

    /// What a status means.
    static func outcome(status: Int, retryAfter: String?, now: Double) -> Outcome {
        switch status {
        case 200..<300:
            return .delivered(status: status)
        case 408, 429, 500..<600:
            let wait = (status == 429 || status == 503) ? retryAfter.flatMap { parseRetryAfter($0, now: now) } : nil
            // Said in the reason, which the journal keeps: a wait the receiver asked for is never
            // brought forward (`Journal.bringWebhookRetriesForward`).
            return .retry(reason: "HTTP \(status)" + (wait.map { ", Retry-After \(Int($0.rounded(.up))) s" } ?? ""), retryAfter: wait)
        default:
            return .dead(reason: "HTTP \(status)")
        }
    }

    /// `Retry-After` as seconds, or as an HTTP date; `nil` when neither.
    static func parseRetryAfter(_ text: String, now: Double) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed), seconds.isFinite, seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince1970 - now)
    }

    /// POSTs `body` and classifies the answer. A cancelled attempt (the worker stopping) throws,
    /// so that its row stays queued as it was.
    static func send(
        _ client: HTTPClient, url: String, headers: [(String, String)], body: [UInt8], timeout: Double, now: Double
    ) async throws(CancellationError) -> Outcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let authorization = basicAuthorization(url) { request.headers.add(name: "Authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            // Clamped: a timeout_s of 1e300 must not overflow.
            let milliseconds = Int64(min(max(timeout, 0.001), 86_400) * 1_000)
            let deadline = ContinuousClock.now + .milliseconds(milliseconds)
            let response = try await client.execute(request, timeout: .milliseconds(milliseconds))
            await drain(response.body, before: deadline)
            return outcome(status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"), now: now)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            // A URL the client cannot use will not get better by waiting.
            if let error = error as? HTTPClientError, [.invalidURL, .emptyHost, .emptyScheme].contains(error) {
                return .dead(reason: describe(error))
            }
            return .retry(reason: describe(error), retryAfter: nil)
        }
    }

    /// Reads and drops the answer's body, so that the connection is free for the next delivery,
    /// until `deadline` at most: AsyncHTTPClient's deadline ends with the answer's head, and a
    /// receiver that dripped its body held the device's next events for as long as it liked. Past
    /// the deadline the body is abandoned, which closes the connection; the status has decided.
    static func drain(_ body: HTTPClientResponse.Body, before deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await body.collect(upTo: 1 << 20) }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }

    /// `Basic` credentials from the URL's user and password (`https://user:secret@host/...`), as
    /// curl sends them: the client does not send a URL's credentials by itself.
    static func basicAuthorization(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let user = components.user else { return nil }
        let credentials = user + ":" + (components.password ?? "")
        return "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    /// A short reason for the API's `last_error` and the dead letters. A system call's failure is
    /// named by its errno (NIO's own text for a refused connection was
    /// "connection reset (error set): Connection refused) (errno: 111)").
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded { return "timeout" }
            return "\(error)"
        }
        if let error = error as? IOError {
            return "connection failed: \(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))"
        }
        let text = "\(error)"
        // NIOSSL's handshake errors print BoringSSL's stack of errors, with a source path of the
        // build machine: said as what they mean, the library's reason kept.
        if text.hasPrefix("handshakeFailed") {
            let reasons = ["CERTIFICATE_VERIFY_FAILED": "the receiver's certificate is not trusted or does not match its host"]
            for (code, meaning) in reasons where text.contains(code) { return "TLS handshake failed: \(meaning) (\(code))" }
            let code = text.split(whereSeparator: { ":[] ".contains($0) }).first { $0.uppercased() == $0 && $0.contains("_") }
            return "TLS handshake failed" + (code.map { " (\($0))" } ?? "")
        }
        return text.count > 300 ? String(text.prefix(300)) : text
    }
}
