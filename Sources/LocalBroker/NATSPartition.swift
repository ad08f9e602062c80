/// Which of P partitions NATS' `{{partition(P,1)}}` mapping sends a device to (docs/several-instances.md "Several
/// instances"): FNV-1a-32 of the device id's bytes, modulo P. The same device always lands on the
/// same partition, so an operator, a test or a benchmark can tell which instance holds it.
public enum NATSPartition {
    public static func of(device: String, partitions: Int) -> Int {
        precondition(partitions >= 1, "at least one partition")
        var hash: UInt32 = 2_166_136_261
        for byte in device.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return Int(hash % UInt32(partitions))
    }
}
