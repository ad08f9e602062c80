import FleetFenceSettings

/// One layer of the precedence, strongest first, named the way an operator would look for it.
enum ConfigurationLayer: Equatable {
    case flag
    case environment
    case file(path: String)
    case builtInDefault

    func label(for key: ConfigurationKey) -> String {
        switch self {
        case .flag: "flag --\(key.flag)"
        case .environment: "environment variable \(key.environmentVariable)"
        case .file(let path): "config file \(path)"
        case .builtInDefault: "built-in default"
        }
    }
}
