/// Why a GPX file could not be used, with the place to look.
public struct GPXError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file as given (path or name).
    public var file: String
    /// 1-based line; 0 when the problem is the file as a whole.
    public var line: Int
    public var message: String

    public init(file: String, line: Int, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
    }
}
