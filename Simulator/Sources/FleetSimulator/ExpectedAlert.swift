import GeofenceEngine

/// An alert the service should (or may) send, from the noise-free path.
public struct ExpectedAlert: Sendable, Hashable {
    public enum Certainty: String, Sendable, Hashable {
        /// Clean: missing it is a miss.
        case expected
        /// Too close to a threshold to call: neither its presence nor its absence is an error.
        case ambiguous
    }

    public var device: String
    /// The fence; for a tour's event, the stop's fence.
    public var fence: String
    public var event: AlertEvent
    /// The true boundary crossing (for `dwell` and a tour's events, the crossing of the enter;
    /// for `speeding`, the episode's first sample over the limit), simulated time.
    public var at: Double
    /// When the event truly happened: the crossing, for `dwell` the crossing plus `dwell_s`, for
    /// `speeding` the first sample a debounce into the episode. Delays are measured from here.
    public var due: Double
    /// Where the service's estimated crossing (the alert's `at`) may fall: the true crossing, or
    /// later when noise can put samples after it back on the old side (a device lingering
    /// within the noise of the boundary), or earlier when noise can put samples before it on
    /// the new side. Scoring measures an alert's `at` against this span.
    public var atWindow: ClosedRange<Double>
    public var certainty: Certainty
    /// Why it is ambiguous, for the report.
    public var note: String?
    /// Only the device's silence at the end confirms it: the service needs `silent_confirm_s` of
    /// wall-clock quiet after the last position to send it.
    public var bySilence = false
    /// A tour's event: the tour, and the place in it of the stop `fence` names.
    public var tour: String?
    public var stopIndex: Int?
    /// `tour_completed`: where its `duration_s` may fall, seconds.
    public var duration: ClosedRange<Double>?

    public init(
        device: String, fence: String, event: AlertEvent, at: Double, due: Double? = nil,
        certainty: Certainty, note: String? = nil, bySilence: Bool = false, atWindow: ClosedRange<Double>? = nil,
        tour: String? = nil, stopIndex: Int? = nil, duration: ClosedRange<Double>? = nil
    ) {
        self.tour = tour
        self.stopIndex = stopIndex
        self.duration = duration
        self.device = device
        self.fence = fence
        self.event = event
        self.at = at
        self.due = due ?? at
        self.atWindow = atWindow.map { min($0.lowerBound, at)...max($0.upperBound, at) } ?? at...at
        self.certainty = certainty
        self.note = note
        self.bySilence = bySilence
    }
}

/// The service's rules as ground truth applies them, with the margins that make a call safe.
public struct GroundTruthRules: Sendable, Hashable {
    /// The service's settings (debounce, hysteresis, radius clamp, accuracy limit).
    public var settings: GeofenceSettings
    /// Penetrations within this many noise standard deviations of the evidence band are ambiguous.
    public var noiseSigmas: Double
    /// Times on the new side within this many seconds of `debounce_s` (or `dwell_s`) are ambiguous.
    public var timeMargin: Double

    public init(settings: GeofenceSettings = GeofenceSettings(), noiseSigmas: Double = 2, timeMargin: Double = 2) {
        self.settings = settings
        self.noiseSigmas = noiseSigmas
        self.timeMargin = timeMargin
    }
}
