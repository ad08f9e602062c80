/// Why a run could not produce its figures.
enum BenchError: Error, CustomStringConvertible {
    case failed(String)
    case serviceDied(status: Int32?, log: String)
    case timedOut(String)

    var description: String {
        switch self {
        case let .failed(reason): reason
        case let .serviceDied(status, log): "fleetfence exited (status \(status.map(String.init) ?? "?")); its last log lines:\n\(log)"
        case let .timedOut(what): "timed out: \(what)"
        }
    }
}
