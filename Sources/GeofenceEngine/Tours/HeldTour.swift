/// A tour as the engine holds it: its definition and its audience group.
struct HeldTour: Sendable {
    let definition: TourDefinition
    let group: Int32
}

/// One stop of one tour: where a fence appears in it.
struct TourStop: Sendable {
    let tour: Int32
    let index: Int
}

/// An enter confirmed during a device's step: what a visit is made of.
struct ConfirmedEnter: Sendable {
    let fenceSlot: Int32
    let at: Double
    let confirmedAt: Double
    let lat: Double
    let lon: Double
}
