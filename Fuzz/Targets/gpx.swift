import FuzzChecks

/// libFuzzer's entry point for the `gpx` target (docs/performance.md "Fuzzing"); built by Scripts/fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.gpx.run(data, size)
    return 0
}
