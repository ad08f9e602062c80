/// A device's place in the engine: looking a device up once and reusing the handle saves hashing
/// its id for every sample. A handle names its device until the device is forgotten
/// (`forgetDevice`); its place may then be given to another device. Samples need a handle of a
/// device held (`process`); the readers by handle (`holds`, `deviceRecord(_:)`,
/// `deviceClock(_:)`, `insideFences(_:)`) take older ones too and read whoever holds the place.
public struct DeviceHandle: Sendable, Hashable {
    let slot: Int32

    /// The place as an array index, for tables kept beside the engine's (from 0, dense).
    public var index: Int { Int(slot) }
}
