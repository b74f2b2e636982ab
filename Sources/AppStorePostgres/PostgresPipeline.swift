import AppStoreEngine
import PostgresNIO

/// The statements of one transaction on a ``PostgresSession``, sent so that its thread waits once for several.
///
/// A statement whose answer the transaction does not need yet — `BEGIN`, the tenant's lock, a write — is held back
/// and sent just before the next statement whose answer it waits for, all at once: postgres-nio queues them on the
/// connection and its event loop sends each as soon as the one before is answered, so the transaction's thread is
/// woken once for all of them instead of once each. They run in the order they were given: a read sees every write
/// held before it, and one held after the lock runs once the lock is granted.
///
/// Rows inserted one after another into the same table (``holdRow(_:key:_:)``) — a year of renewals writes hundreds
/// of thousands — are gathered into one multi-row `INSERT` per table, given its place among the held statements when
/// anything else is held or sent, or a ``mark()`` is taken: one statement, and one round trip, for many rows. Only
/// rows are reordered, and only across tables that no constraint or trigger ties together; a table's rows keep
/// their order, and every other statement sees every row given before it.
///
/// PostgreSQL aborts a transaction at its first failed statement, and refuses every statement after it; the first
/// failure is the one thrown, and it is kept: a transaction that saw one is never committed, even if the body that
/// got it went on (see ``failure``). Used on the transaction's thread only.
final class PostgresPipeline {
    let session: PostgresSession
    /// Statements not sent yet, each with what to do with its answer.
    private var held: [(query: PostgresQuery, answered: ((PostgresQueryResult) throws(StoreError) -> Void)?)] = []
    /// Rows being gathered into multi-row inserts, a table each, in the order their tables got their first row.
    private var gathering: [GatheredRows] = []
    /// Whether a statement was sent: until then there is no transaction on the server to end.
    private(set) var started = false
    /// The first failure of a statement sent, described.
    private(set) var failure: StoreError?
    /// How many statements were sent.
    private var sent = 0
    /// Where the last held statement sent was among all the statements given.
    private var lastHeldSent: Int?
    /// Where the statement of ``failure`` was among all the statements given: the first is 0.
    private var failedPosition: Int?

    /// A point in the statements given, to take back what follows it (``discard(since:)``).
    struct Mark {
        /// How many statements were given before it.
        fileprivate let position: Int
    }

    init(session: PostgresSession) {
        self.session = session
    }

    /// Holds a statement back until the next one that is waited for; `answered` gets its result then.
    func hold(_ query: PostgresQuery, answered: ((PostgresQueryResult) throws(StoreError) -> Void)? = nil) {
        holdGatheredRows()
        held.append((query, answered))
    }

    /// Holds a row for `insert`: `bind` appends its values, one per column. A row whose `key` is already among those
    /// gathered for the table (an upsert of the same row twice, which one statement cannot do) starts a new statement.
    func holdRow(_ insert: PostgresRowInsert, key: Int64? = nil, _ bind: (inout PostgresBindings) -> Void) {
        let index = gathering.firstIndex { $0.insert == insert } ?? {
            gathering.append(GatheredRows(insert: insert))
            return gathering.count - 1
        }()
        if gathering[index].rows == PostgresRowInsert.mostRows || key.map(gathering[index].keys.contains) == true {
            held.append((gathering[index].query, nil))
            gathering[index] = GatheredRows(insert: insert)
        }
        gathering[index].rows += 1
        if let key { gathering[index].keys.insert(key) }
        let before = gathering[index].binds.count
        bind(&gathering[index].binds)
        precondition(gathering[index].binds.count - before == insert.columnCount, "A row of \(insert.table) binds one value per column.")
    }

    /// Gives the rows gathered so far their statements, held in the order their tables got their first row.
    private func holdGatheredRows() {
        guard !gathering.isEmpty else { return }
        held += gathering.map { ($0.query, nil) }
        gathering = []
    }

    /// The point after the statements given so far; rows gathered before it are statements of their own.
    func mark() -> Mark {
        holdGatheredRows()
        return Mark(position: sent + held.count)
    }

    /// Whether ``failure`` came from a statement given at or after `mark`.
    func failed(atOrAfter mark: Mark) -> Bool {
        failedPosition.map { $0 >= mark.position } ?? false
    }

    /// Drops the statements held since `mark`; returns whether none of those held since was sent (with a read), so
    /// that the server has none of them. (Reads sent since change nothing.)
    func discard(since mark: Mark) -> Bool {
        // Rows still gathering were all given after the mark: taking it made statements of those before.
        gathering = []
        held.removeSubrange(min(held.count, max(0, mark.position - sent))...)
        return lastHeldSent.map { $0 < mark.position } ?? true
    }

    /// Sends what is held, then `query`, and returns the rows of `query`.
    func rows(_ query: PostgresQuery) throws(StoreError) -> [PostgresRow] {
        try send([query]).last?.rows ?? []
    }

    /// Sends what is held, if anything.
    func flush() throws(StoreError) {
        holdGatheredRows()
        guard !held.isEmpty else { return }
        _ = try send([])
    }

    /// Sends what is held, then `queries`, waits for all of them, and returns the results of `queries`.
    ///
    /// - Parameter tenant: The tenant, when the last of `queries` is the `COMMIT`: its failure may have taken
    ///   effect, and is described so.
    func send(_ queries: [PostgresQuery], committing tenant: String? = nil) throws(StoreError) -> [PostgresQueryResult] {
        holdGatheredRows()
        let batch = held + queries.map { ($0, nil) }
        let firstPosition = sent
        if !held.isEmpty { lastHeldSent = sent + held.count - 1 }
        held = []
        started = true
        sent += batch.count
        // Every statement is handed to the connection before waiting for the first answer.
        let answers = batch.map { session.connection.query($0.query, logger: session.logger) }
        var results: [PostgresQueryResult] = []
        var failed: (error: StoreError, index: Int)?
        for (index, answer) in answers.enumerated() {
            do {
                let result = try answer.wait()
                if failed == nil { results.append(result) }
            } catch {
                // Waiting for every answer, failed or not, leaves nothing of the batch in flight.
                guard failed == nil else { continue }
                let described = if let tenant, index == batch.count - 1 {
                    PostgresFailure.describeCommit(error, tenant: tenant, on: session.configuration)
                } else {
                    PostgresFailure.describe(error, running: batch[index].query.sql, on: session.configuration)
                }
                failed = (described, index)
            }
        }
        // The statements answered before a failure are read all the same.
        for (index, (statement, result)) in zip(batch, results).enumerated() {
            do throws(StoreError) {
                try statement.answered?(result)
            } catch {
                note(error, at: firstPosition + index)
                throw error
            }
        }
        if let failed {
            note(failed.error, at: firstPosition + failed.index)
            throw failed.error
        }
        return Array(results.suffix(queries.count))
    }

    /// Keeps the first failure, and where it happened.
    private func note(_ error: StoreError, at position: Int) {
        guard failure == nil else { return }
        failure = error
        failedPosition = position
    }
}

/// A multi-row `INSERT` a ``PostgresPipeline`` gathers rows for: the table, its columns, and what follows the rows
/// (an `ON CONFLICT` clause, or nothing).
struct PostgresRowInsert: Equatable {
    let table: String
    let columns: [String]
    let conflict: String

    var columnCount: Int { columns.count }

    /// The most rows in one statement: PostgreSQL takes at most 65,535 values a statement, and past a few hundred
    /// rows a statement saves no more round trips worth having.
    static let mostRows = 1_000
}

/// The rows gathered for one ``PostgresRowInsert``.
private struct GatheredRows {
    let insert: PostgresRowInsert
    var binds = PostgresBindings()
    var rows = 0
    /// The keys of the rows, for an upsert; empty otherwise.
    var keys: Set<Int64> = []

    /// `INSERT INTO table (columns) VALUES ($1, …), (…), … conflict`.
    var query: PostgresQuery {
        let width = insert.columnCount
        var sql = "INSERT INTO \(insert.table) (\(insert.columns.joined(separator: ", "))) VALUES "
        sql.reserveCapacity(sql.utf8.count + rows * width * 7 + insert.conflict.utf8.count + 1)
        for row in 0..<rows {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<width {
                if column > 0 { sql += ", " }
                sql += "$\(row * width + column + 1)"
            }
            sql += ")"
        }
        if !insert.conflict.isEmpty { sql += " " + insert.conflict }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
