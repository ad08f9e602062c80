/// Core Location's rule, kept: radii are clamped into a sane range instead of rejected.
public enum RadiusClamp {
    public static func clamp(_ radius: Double, min lower: Double, max upper: Double) -> Double {
        Swift.min(Swift.max(radius, lower), Swift.max(lower, upper))
    }
}
