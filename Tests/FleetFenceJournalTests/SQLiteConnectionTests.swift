import Foundation
import Testing

@testable import FleetFenceJournal

@Suite("SQLite connection")
struct SQLiteConnectionTests {
    private let path = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-sqlite-\(UUID().uuidString).db").path

    private func withConnection(_ body: (SQLiteConnection) throws -> Void) throws {
        let db = try SQLiteConnection.open(path: path)
        defer {
            try? db.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        try body(db)
    }

    @Test func everyKindOfValueRoundTrips() throws {
        try withConnection { db in
            try db.run("CREATE TABLE t (v)")
            let values: [SQLiteData] = [
                .null, .integer(.min), .integer(.max), .integer(0), .float(-0.5), .float(1e308), .float(.leastNonzeroMagnitude),
                .text(""), .text("Süd \u{1F69A}"), .text("nul\u{0}inside"), .blob([]), .blob([0, 255, 7]),
            ]
            for value in values { try db.run("INSERT INTO t (v) VALUES (?)", [value]) }
            let read = try db.run("SELECT v FROM t ORDER BY rowid").map { $0.column("v") }
            #expect(read == values)
        }
    }

    /// The checkpointer's flush goes through SQLite's own handle of the file: it works on an open
    /// connection, leaves it usable, and is refused once the connection is closed.
    @Test func theFileIsFlushedThroughSQLitesOwnHandle() throws {
        try withConnection { db in
            try db.run("PRAGMA journal_mode = WAL")
            try db.run("CREATE TABLE t (v)")
            try db.run("INSERT INTO t (v) VALUES (1)")
            try db.syncFile()
            try db.run("INSERT INTO t (v) VALUES (2)")
            #expect(try db.run("SELECT count(*) AS n FROM t").first?.column("n")?.int64Value == 2)
        }
        let closed = try SQLiteConnection.open(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try closed.close()
        #expect(throws: SQLiteError.self) { try closed.syncFile() }
    }

    @Test func rowsNameTheirColumns() throws {
        try withConnection { db in
            let row = try #require(try db.run("SELECT 1 AS one, 'two' AS two, 2.5 AS three").first)
            #expect(row.column("one")?.int64Value == 1)
            #expect(row.column("two")?.stringValue == "two")
            #expect(row.column("three")?.doubleValue == 2.5)
            #expect(row.column("four") == nil)
        }
    }

    @Test func errorsCarrySQLitesMessage() throws {
        try withConnection { db in
            #expect { try db.run("SELEC 1") } throws: { error in
                (error as? SQLiteError)?.message.contains("syntax error") == true
            }
            #expect { try db.run("SELECT ?", []) } throws: { error in
                (error as? SQLiteError)?.description == "SQLite error 25: 0 values bound to 1 parameters"
            }
            // Only the first statement of a text would run: refused rather than half done.
            #expect { try db.run("SELECT 1; SELECT 2") } throws: { error in
                (error as? SQLiteError)?.message == "more than one statement in: SELECT 1; SELECT 2"
            }
            #expect(try db.run("SELECT 1 AS one;  ").count == 1)
            try db.run("CREATE TABLE u (id INTEGER PRIMARY KEY)")
            try db.run("INSERT INTO u (id) VALUES (1)")
            #expect(throws: SQLiteError.self) { try db.run("INSERT INTO u (id) VALUES (1)") }
            // The failed statement was reset: the same text runs again.
            try db.run("INSERT INTO u (id) VALUES (?)", [.integer(2)])
            #expect(try db.run("SELECT COUNT(*) AS n FROM u").first?.column("n")?.int64Value == 2)
        }
    }

    @Test func aFailedTransactionLeavesNothing() throws {
        try withConnection { db in
            try db.run("CREATE TABLE u (id INTEGER PRIMARY KEY)")
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try db.transaction {
                    try db.run("INSERT INTO u (id) VALUES (1)")
                    throw Stop()
                }
            }
            try db.transaction { try db.run("INSERT INTO u (id) VALUES (2)") }
            #expect(try db.run("SELECT id FROM u").map { $0.column("id")?.int64Value } == [2])
        }
    }

    /// More statement texts than the cache holds: the cache is emptied and statements prepared again.
    @Test func manyDistinctStatementsStillRun() throws {
        try withConnection { db in
            for n in 0..<200 {
                let read = try db.run("SELECT \(n) AS n").first?.column("n")?.int64Value
                #expect(read == Int64(n))
            }
            let again = try db.run("SELECT 7 AS n").first?.column("n")?.int64Value
            #expect(again == 7)
            #expect(db.cachedStatementCount <= 64, "the cache stays bounded")
        }
    }

    /// The statement used last is kept apart from the cache: texts that alternate must each still
    /// get their own statement, with their own bindings (same length, differing late).
    @Test func alternatingStatementsEachRunTheirOwn() throws {
        try withConnection { db in
            func value(_ sql: String, _ bound: Int64) throws -> Int64? {
                try db.run(sql, [.integer(bound)]).first?.column("n")?.int64Value
            }
            for n in Int64(0)..<5 {
                let plusOne = try value("SELECT ?1 + 1 AS n", n)
                let timesOne = try value("SELECT ?1 * 1 AS n", n)
                let timesOneAgain = try value("SELECT ?1 * 1 AS n", n + 1)
                #expect(plusOne == n + 1)
                #expect(timesOne == n)
                #expect(timesOneAgain == n + 1)
            }
        }
    }

    /// Another connection's write transaction (someone in the sqlite3 shell) makes a write wait,
    /// not fail with "database is locked".
    @Test func aWriteWaitsForAnotherConnectionsTransaction() throws {
        try withConnection { db in
            try db.run("CREATE TABLE t (x INTEGER)")
            let other = try SQLiteConnection.open(path: path)
            defer { try? other.close() }
            try other.run("BEGIN IMMEDIATE")
            let released = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: 0.3)
                _ = try? other.run("COMMIT")
                released.signal()
            }
            try db.run("INSERT INTO t VALUES (1)")
            released.wait()
            #expect(try db.run("SELECT COUNT(*) AS n FROM t").first?.column("n")?.int64Value == 1)
        }
    }

    /// The frame count comes from the WAL hook, and only a checkpoint that copied every frame
    /// resets it: a reader still on older frames (someone in the sqlite3 shell) keeps it partial.
    @Test func walFramesCountUntilACompleteCheckpoint() throws {
        try withConnection { db in
            try db.run("PRAGMA journal_mode = WAL")
            db.takeOverCheckpoints()
            try db.run("CREATE TABLE t (v)")
            try db.run("INSERT INTO t (v) VALUES (1)")
            #expect(db.walFrames > 0)

            let reader = try SQLiteConnection.open(path: path)
            defer { try? reader.close() }
            try reader.run("BEGIN")
            #expect(try reader.run("SELECT count(*) AS n FROM t").first?.column("n")?.int64Value == 1)
            try db.run("INSERT INTO t (v) VALUES (2)")
            let pinned = db.walFrames
            #expect(try !db.checkpoint().complete)
            #expect(db.walFrames == pinned)

            try reader.run("COMMIT")
            #expect(try db.checkpoint().complete)
            #expect(db.walFrames == 0)
        }
    }

    /// A checkpoint on a second connection says how far it got; the WAL hook sees the next
    /// commit start the WAL over (a new generation), and a complete checkpoint noted by hand
    /// counts as one too.
    @Test func aCheckpointOnAnotherConnectionReportsItsProgress() throws {
        try withConnection { db in
            try db.run("PRAGMA journal_mode = WAL")
            db.takeOverCheckpoints()
            try db.run("CREATE TABLE t (v)")
            for value in 1...5 { try db.run("INSERT INTO t (v) VALUES (?)", [.integer(Int64(value))]) }
            let frames = db.walFrames
            let generation = db.walGeneration
            let other = try SQLiteConnection.open(path: path)
            defer { try? other.close() }
            #expect(try other.checkpoint() == .init(frames: frames, checkpointed: frames, complete: true))
            // Another connection's checkpoint leaves this one's counts alone.
            #expect(db.walFrames == frames && db.walGeneration == generation)
            try db.run("INSERT INTO t (v) VALUES (6)")
            #expect(db.walFrames < frames)
            #expect(db.walGeneration == generation + 1)
            try db.run("INSERT INTO t (v) VALUES (7)")
            let now = db.walFrames
            #expect(try other.checkpoint() == .init(frames: now, checkpointed: now, complete: true))
            db.walWasCheckpointed()
            #expect(db.walFrames == 0 && db.walGeneration == generation + 2)
        }
    }

    @Test func closedConnectionRefusesStatements() throws {
        let db = try SQLiteConnection.open(path: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        try db.close()
        try db.close()
        #expect(throws: SQLiteError.self) { try db.run("SELECT 1") }
    }
}
