import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A new directory `<name>-XXXXXX` under the temporary directory for one run's files (journals, logs,
/// fences files): `mkdtemp` makes it unique, so that two runs never share one.
func makeScratchDirectory(_ name: String) throws -> String {
    var template = Array(FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-XXXXXX").path.utf8CString)
    guard let created = mkdtemp(&template) else { throw BenchError.failed("mkdtemp: \(String(cString: strerror(errno)))") }
    return String(cString: created)
}

/// A progress line on standard error, apart from the table and RESULT line on standard output.
func printProgress(_ line: String) {
    FileHandle.standardError.write(Data("fleetbench: \(line)\n".utf8))
}
