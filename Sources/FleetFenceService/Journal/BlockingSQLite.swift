import Logging
import SQLiteNIO

/// sqlite-nio's connection used synchronously: each statement runs on NIO's thread pool and the caller
/// waits for it. The journal is written from a plain thread, where waiting is legal and keeps the API simple.
struct BlockingSQLite: Sendable {
    let connection: SQLiteConnection

    static func open(path: String, logger: Logger) throws -> BlockingSQLite {
        let connection = try SQLiteConnection.open(
            storage: .file(path: path), threadPool: .singleton, logger: logger,
            on: MultiThreadedEventLoopGroup.singleton.any()
        ).wait()
        return BlockingSQLite(connection: connection)
    }

    /// Runs one statement (sqlite-nio prepares only the first statement of a string) and returns its rows.
    @discardableResult
    func run(_ sql: String, _ binds: [SQLiteData] = []) throws -> [SQLiteRow] {
        try connection.query(sql, binds).wait()
    }

    /// Runs `body` inside one transaction; IMMEDIATE takes the write lock up front, so a concurrent
    /// writer in another process makes it wait at BEGIN instead of failing halfway.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    func close() throws {
        try connection.close().wait()
    }
}
