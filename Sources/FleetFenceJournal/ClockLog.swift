import GeofenceEngine

/// The latest-sample clocks of a second, one packed row of `clock_log` (docs/operations.md
/// "Journal"): what a `kill -9` must not forget of them, appended in one insert instead of an
/// upsert per device. Every minute or so the service folds the log into `device_clocks`, a row
/// per device logged since the last fold, and the rows the fold covers are then deleted.
///
/// Why: upserted each second, a device's clock row landed on a page of its own in the WAL for
/// most devices. In the soak's fleet (225,000 devices, each reporting every 5 s) that was about
/// 1.7 µs of the writer's time a row and 7.5% of the service's CPU (docs/performance.md "Soak");
/// for a million devices every 30 s it would be most of the table's 20,000 pages every second
/// (estimated from the rows' size: some 60 MB of WAL a second). Logged, a second's clocks are
/// about 60 bytes each, and a fold writes a device's row once a fold.
///
/// A row is a format byte, then entries in the order they happened: a clock (the device's id and
/// its times and place) or a tombstone (the device was forgotten: the entries before it say
/// nothing any more). Numbers are little-endian IEEE doubles, exactly as held.
public enum ClockLog {
    public enum Entry: Sendable, Equatable {
        case clock(DeviceClock)
        case forgotten(String)
    }

    static let format: UInt8 = 1
    private static let tombstone: UInt8 = 0
    private static let clock: UInt8 = 1
    private static let hasAnchor: UInt8 = 2
    private static let hasLastHeard: UInt8 = 4

    /// Appends tombstones for `forgotten`, then `clocks`, to `row` (begun with the format byte
    /// when empty): a row is built across the steps of one transaction, in their order.
    public static func append(forgotten: [String] = [], clocks: [DeviceClock], to row: inout [UInt8]) {
        guard !forgotten.isEmpty || !clocks.isEmpty else { return }
        if row.isEmpty {
            // About 60 bytes a clock: one allocation for a step's worth.
            row.reserveCapacity(1 + forgotten.count * 24 + clocks.count * 64)
            row.append(format)
        }
        for device in forgotten {
            row.append(tombstone)
            appendID(device, to: &row)
        }
        for entry in clocks { append(entry, to: &row) }
    }

    private static func append(_ entry: DeviceClock, to bytes: inout [UInt8]) {
        var tag = clock
        let anchor = entry.anchorTime.flatMap { time in
            entry.anchorLat.flatMap { lat in entry.anchorLon.map { (time, lat, $0) } }
        }
        if anchor != nil { tag |= hasAnchor }
        if entry.lastHeard != nil { tag |= hasLastHeard }
        bytes.append(tag)
        appendID(entry.device, to: &bytes)
        appendDouble(entry.lastTimestamp, to: &bytes)
        if let anchor {
            appendDouble(anchor.0, to: &bytes)
            appendDouble(anchor.1, to: &bytes)
            appendDouble(anchor.2, to: &bytes)
        }
        if let lastHeard = entry.lastHeard { appendDouble(lastHeard, to: &bytes) }
    }

    /// Calls `body` with each entry of `row`, in order. Throws `malformed` on a row this build
    /// cannot read (cut short, an unknown format or tag).
    public static func decode(_ row: [UInt8], _ body: (Entry) -> Void) throws {
        try row.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            guard raw.first == format else { throw Malformed() }
            var offset = 1
            while offset < raw.count {
                let tag = raw[offset]
                offset += 1
                let device = try readID(raw, &offset)
                if tag == tombstone {
                    body(.forgotten(device))
                    continue
                }
                guard tag & clock != 0, tag & ~(clock | hasAnchor | hasLastHeard) == 0 else { throw Malformed() }
                let lastTimestamp = try readDouble(raw, &offset)
                var anchor: (Double, Double, Double)?
                if tag & hasAnchor != 0 {
                    anchor = (try readDouble(raw, &offset), try readDouble(raw, &offset), try readDouble(raw, &offset))
                }
                let lastHeard = tag & hasLastHeard != 0 ? try readDouble(raw, &offset) : nil
                body(.clock(DeviceClock(
                    device: device, lastTimestamp: lastTimestamp, anchorTime: anchor?.0, anchorLat: anchor?.1,
                    anchorLon: anchor?.2, lastHeard: lastHeard)))
            }
        }
    }

    /// A row this build cannot read.
    public struct Malformed: Error {}

    /// Ids are at most 256 bytes (docs/operations.md "Limits and failures"): two bytes of length.
    private static func appendID(_ device: String, to bytes: inout [UInt8]) {
        let utf8 = device.utf8
        let count = UInt16(clamping: utf8.count)
        bytes.append(UInt8(truncatingIfNeeded: count))
        bytes.append(UInt8(truncatingIfNeeded: count >> 8))
        bytes.append(contentsOf: utf8.prefix(Int(count)))
    }

    private static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func readID(_ raw: UnsafeRawBufferPointer, _ offset: inout Int) throws(Malformed) -> String {
        guard offset + 2 <= raw.count else { throw Malformed() }
        let count = Int(raw[offset]) | Int(raw[offset + 1]) << 8
        offset += 2
        guard offset + count <= raw.count else { throw Malformed() }
        let device = String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)]), as: UTF8.self)
        offset += count
        return device
    }

    private static func readDouble(_ raw: UnsafeRawBufferPointer, _ offset: inout Int) throws(Malformed) -> Double {
        guard offset + 8 <= raw.count else { throw Malformed() }
        let bits = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return Double(bitPattern: UInt64(littleEndian: bits))
    }
}
