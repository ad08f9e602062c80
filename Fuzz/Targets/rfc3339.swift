import FuzzChecks

/// libFuzzer's entry point for the `rfc3339` target (docs/performance.md "Fuzzing"); built by Scripts/fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.rfc3339.run(data, size)
    return 0
}
