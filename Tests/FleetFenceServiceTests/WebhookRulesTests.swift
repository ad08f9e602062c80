import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceService

/// The webhooks' rules without a network (docs/webhooks.md "Webhooks"): what a status means, Retry-After,
/// the back-off's bounds, globs, which webhooks an event is queued for, and header values.
@Suite("Webhook rules")
struct WebhookRulesTests {
    @Test func statusesDeliverRetryOrDeadLetter() {
        for status in [200, 201, 202, 204, 299] {
            #expect(WebhookAttempt.outcome(status: status, retryAfter: nil, now: 0) == .delivered(status: status))
        }
        for status in [408, 429, 500, 502, 503, 599] {
            #expect(WebhookAttempt.outcome(status: status, retryAfter: nil, now: 0) == .retry(reason: "HTTP \(status)", retryAfter: nil))
        }
        for status in [301, 400, 401, 404, 410, 422] {
            #expect(WebhookAttempt.outcome(status: status, retryAfter: nil, now: 0) == .dead(reason: "HTTP \(status)"))
        }
        #expect(WebhookAttempt.outcome(status: 429, retryAfter: "7", now: 0) == .retry(reason: "HTTP 429, Retry-After 7 s", retryAfter: 7))
        #expect(WebhookAttempt.outcome(status: 429, retryAfter: nil, now: 0) == .retry(reason: "HTTP 429", retryAfter: nil))
        // Retry-After counts on 429 and 503 only.
        #expect(WebhookAttempt.outcome(status: 500, retryAfter: "7", now: 0) == .retry(reason: "HTTP 500", retryAfter: nil))
    }

    @Test func retryAfterIsSecondsOrAnHTTPDate() {
        #expect(WebhookAttempt.parseRetryAfter(" 120 ", now: 0) == 120)
        // Wed, 21 Oct 2015 07:28:00 GMT is 1445412480.
        #expect(WebhookAttempt.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: 1_445_412_400) == 80)
        #expect(WebhookAttempt.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: 1_445_412_500) == 0)
        #expect(WebhookAttempt.parseRetryAfter("soon", now: 0) == nil)
        #expect(WebhookAttempt.parseRetryAfter("-5", now: 0) == nil)
        #expect(WebhookAttempt.parseRetryAfter("1e400", now: 0) == nil)
    }

    @Test func backOffDoublesFromOneSecondToFiveMinutesWithJitter() {
        let backoff = WebhookBackoff()
        // The first retry too is spread, over 1-2 s.
        #expect(backoff.delay(afterFailures: 1, unit: 0) == 1)
        #expect(backoff.delay(afterFailures: 1, unit: 0.5) == 1.5 && backoff.delay(afterFailures: 1, unit: 0.999) > 1.99)
        #expect(backoff.delay(afterFailures: 4, unit: 0) == 8 && backoff.delay(afterFailures: 4, unit: 0.999) > 15.9)
        // At the cap the waits still spread, over 4-5 min, never past it.
        #expect(backoff.delay(afterFailures: 50, unit: 0.999) > 299.9 && backoff.delay(afterFailures: 50, unit: 0.999) < 300)
        #expect(backoff.delay(afterFailures: 50, unit: 0) == 240)
        #expect(backoff.delay(afterFailures: 50, unit: 0.25) != backoff.delay(afterFailures: 50, unit: 0.75))
        #expect(backoff.delay(afterFailures: 9, unit: 0) == 256 && backoff.delay(afterFailures: 9, unit: 0.5) == 270)
        #expect(backoff.delay(afterFailures: 1_000_000, unit: 0.5) <= 300)
    }

    /// A `Retry-After` is a floor on the wait, never a replacement for the back-off: answered 429
    /// with `Retry-After: 0` every time, the retries still spread out to five minutes.
    @Test func aRetryAfterShorterThanTheBackOffWaitsTheBackOff() {
        let backoff = WebhookBackoff()
        #expect(backoff.delay(afterFailures: 8, retryAfter: 0, unit: 0) == 128)
        #expect(backoff.delay(afterFailures: 10, retryAfter: 1, unit: 0.5) == 270)
        #expect(backoff.delay(afterFailures: 1, retryAfter: 90, unit: 0.5) == 90)
        #expect(backoff.delay(afterFailures: 3, retryAfter: nil, unit: 0) == 4)
        #expect(backoff.delay(afterFailures: 1, retryAfter: 1e9, unit: 0) == 3_600)
    }

    @Test func globsMatchWholeIds() {
        #expect(Glob("*").matches("") && Glob("*").matches("anything"))
        #expect(Glob("truck-*").matches("truck-7") && !Glob("truck-*").matches("van-7") && !Glob("truck-*").matches("atruck-7"))
        #expect(Glob("wh-?").matches("wh-3") && !Glob("wh-?").matches("wh-33"))
        #expect(Glob("*-depot-*").matches("north-depot-2") && !Glob("*-depot-*").matches("depot"))
        #expect(Glob("Bus-Müller").matches("Bus-Müller") && !Glob("Bus-Müller").matches("Bus-Muller"))
        #expect(Glob("a*b*c").matches("aXbYbZc") && !Glob("a*b*c").matches("aXbYbZ"))
    }

    @Test func routesChooseByEventDeviceAndFence() {
        var tours = WebhookSettings(name: "tours", url: "http://x/")
        tours.events = ["stop_visited", "tour_completed"]
        var trucks = WebhookSettings(name: "trucks", url: "http://x/")
        trucks.devices = ["truck-*"]
        trucks.fences = ["depot", "wh-?"]
        let routes = WebhookRoutes([WebhookSettings(name: "all", url: "http://x/"), tours, trucks])
        func transition(_ event: AlertEvent, _ device: String, _ fence: String) -> Transition {
            Transition(
                event: event, device: device, fenceID: fence, fenceName: nil, at: 0, confirmedAt: 0, lat: 0, lon: 0,
                radiusMeters: nil, seq: 1)
        }
        #expect(routes.matching(transition(.enter, "truck-1", "depot")) == ["all", "trucks"])
        #expect(routes.matching(transition(.enter, "truck-1", "gate")) == ["all"])
        #expect(routes.matching(transition(.stopVisited, "van-1", "wh-2")) == ["all", "tours"])
        #expect(routes.matching(transition(.stopVisited, "truck-1", "wh-2")) == ["all", "tours", "trucks"])
        #expect(WebhookRoutes().matching(transition(.enter, "a", "b")).isEmpty)
    }

    @Test func aURLsCredentialsAreSentAsBasicAuthorization() {
        #expect(WebhookAttempt.basicAuthorization("https://hooks.example/in") == nil)
        // "ops:s3cr:t" with its colon percent-encoded in the URL, decoded as curl does.
        #expect(WebhookAttempt.basicAuthorization("https://ops:s3cr%3At@hooks.example/in") == "Basic b3BzOnMzY3I6dA==")
        #expect(WebhookAttempt.basicAuthorization("http://token@hooks.example/") == "Basic dG9rZW46")
    }

    @Test func theDeliveryHeaderCarriesNoControlCharacter() {
        #expect(WebhookAttempt.headerSafe("Bus-Müller/7") == "Bus-Müller/7")
        #expect(WebhookAttempt.headerSafe("a\r\nb\u{7F}/1") == "a%0D%0Ab%7F/1")
        // `%` too: two devices never share a delivery id.
        #expect(WebhookAttempt.headerSafe("x%01/1") == "x%2501/1")
        #expect(WebhookAttempt.headerSafe("x\u{01}/1") == "x%01/1")
        let headers = WebhookAttempt.headers(for: ("enter", "a\nb", 3), body: [], secret: nil, now: 0)
        #expect(headers.first { $0.0 == "FleetFence-Delivery" }?.1 == "a%0Ab/3")
        #expect(!headers.contains { $0.0 == "FleetFence-Signature" || $0.0 == "FleetFence-Timestamp" })
    }

    @Test func theAPIShowsAURLWithoutItsPassword() {
        #expect(WebhookStatus.redacted("https://ops:hunter2@hooks.example.com/in") == "https://ops:redacted@hooks.example.com/in")
        #expect(WebhookStatus.redacted("https://hooks.example.com/in?x=1") == "https://hooks.example.com/in?x=1")
    }

    /// A TLS handshake's failure is said as what it means, without BoringSSL's stack and the build
    /// machine's source paths.
    @Test func aTLSFailureIsSaidPlainly() {
        struct Handshake: Error, CustomStringConvertible {
            var description: String
        }
        let untrusted = Handshake(description: "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /build/handshake.cc:320]))")
        #expect(WebhookAttempt.describe(untrusted) == "TLS handshake failed: the receiver's certificate is not trusted or does not match its host (CERTIFICATE_VERIFY_FAILED)")
        let version = Handshake(description: "handshakeFailed(NIOSSL.BoringSSLError.sslError([Error: 268435703 error:100000f7:SSL routines:OPENSSL_internal:WRONG_VERSION_NUMBER at /build/tls_record.cc:231]))")
        #expect(WebhookAttempt.describe(version) == "TLS handshake failed (WRONG_VERSION_NUMBER)")
    }
}
