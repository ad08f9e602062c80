/// Totals since start, for the periodic stats line.
struct ServiceCounters {
    var positions = 0
    var alerts = 0
    var alertsByEvent: [String: Int] = [:]
    var rejected = 0
    var ignored = 0
    var fenceChanges = 0
    var fenceErrors = 0
    var forgotten = 0
    /// Rejections not logged one by one because the log was already busy with them.
    var unloggedRejections = 0
    var loggedRejectionsThisInterval = 0
}
