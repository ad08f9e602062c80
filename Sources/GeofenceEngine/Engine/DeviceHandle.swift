/// A device's place in the engine: looking a device up once and reusing the handle saves hashing
/// its id for every sample. A handle is valid until its device is forgotten (`forgetDevice`),
/// after which its place may be given to another device.
public struct DeviceHandle: Sendable, Hashable {
    let slot: Int32

    /// The place as an array index, for tables kept beside the engine's (from 0, dense).
    public var index: Int { Int(slot) }
}
