import FuzzChecks

/// libFuzzer's entry point for the `tours` target (docs/performance.md "Fuzzing"); built by Scripts/fuzz.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.tours.run(data, size)
    return 0
}
