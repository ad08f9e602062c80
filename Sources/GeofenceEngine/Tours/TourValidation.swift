/// The checks a tour must pass before the engine holds it (docs/rules.md "Tours").
public enum TourValidation {
    /// A delivery round of a day, generously; every confirmed enter looks its fence up among them.
    public static let maxStops = 1_000

    public static func validate(_ tour: TourDefinition) throws(TourError) {
        if let bytes = IDRules.badLength(tour.id) { throw bytes == 0 ? .emptyID : .idTooLong(bytes: bytes) }
        if tour.stops.isEmpty { throw .noStops }
        if tour.stops.count > maxStops { throw .tooManyStops(count: tour.stops.count, limit: maxStops) }
        var seen = Set<ExactID>()
        for stop in tour.stops {
            if IDRules.badLength(stop) != nil { throw .invalidStop(stop) }
            if !seen.insert(ExactID(stop)).inserted { throw .duplicateStop(stop) }
        }
        do throws(DevicePatternError) {
            try DevicePattern.validate(tour.devices)
        } catch {
            throw .invalidDevices(error)
        }
    }
}
