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
/// Rows inserted into the same table (``holdRow(_:key:_:)``) — a year of renewals writes hundreds of thousands,
/// a group of purchases one transaction and one notification each — are gathered into one multi-row `INSERT` per
/// table, one statement and one round trip for many rows. A table's gathered rows take their place among the held
/// statements when a statement that may touch that table is held or sent: a read or write that names the tables it
/// touches settles only those (a purchase's account read leaves the group's transactions gathering), any other
/// settles them all, and so does the commit. Only rows are reordered, and only across tables that no constraint or
/// trigger ties together; a table's rows keep their order, and every statement sees every row of its tables given
/// before it.
///
/// PostgreSQL aborts a transaction at its first failed statement, and refuses every statement after it; the first
/// failure is the one thrown, and it is kept: a transaction that saw one is never committed, even if the body that
/// got it went on (see ``failure``). Used on the transaction's thread only.
final class PostgresPipeline {
    let session: PostgresSession
    /// Statements not sent yet, each with what to do with its answer and whose writes it carries.
    private var held: [HeldStatement] = []
    /// Rows being gathered into multi-row inserts, a table each, in the order their tables got their first row.
    private var gathering: [GatheredRows] = []
    /// Whether a statement was sent: until then there is no transaction on the server to end.
    private(set) var started = false
    /// The first failure of a statement sent, described.
    private(set) var failure: StoreError?
    /// How many statements were sent.
    private var sent = 0
    /// The latest owner (see ``Mark/owner``) of a held statement sent: what the server has of a member.
    private var latestOwnerSent: Int?
    /// Where the statement of ``failure`` was among all the statements given: the first is 0.
    private var failedPosition: Int?
    /// The owners of the rows of the statement of ``failure`` when it was gathered; `nil` for any other.
    private(set) var failedRowOwners: ClosedRange<Int>?
    /// How many marks were taken: the next one's owner.
    private var marks = 0

    /// A point in the statements given, to take back what follows it (``discard(since:)``).
    struct Mark {
        /// How many statements were given before it.
        fileprivate let position: Int
        /// The rows given after it and before the next mark are this mark's: gathered rows are placed later than
        /// the point they were given at, so they are told apart by owner rather than by position.
        let owner: Int
    }

    init(session: PostgresSession) {
        self.session = session
    }

    /// Holds a statement back until the next one that is waited for; `answered` gets its result then.
    ///
    /// - Parameter tables: The tables the statement reads or writes, when it names them all; the rows gathered for
    ///   them go before it, and those of other tables go on gathering. `nil` settles every table's rows first.
    func hold(_ query: PostgresQuery, touching tables: [String]? = nil, answered: ((PostgresQueryResult) throws(StoreError) -> Void)? = nil) {
        holdGatheredRows(of: tables)
        held.append(HeldStatement(query: query, answered: answered, owners: marks - 1...marks - 1))
    }

    /// Gathers a row for `insert`, owned by the latest mark: `bind` appends its values, one per column, when the
    /// row's statement is made. A row whose `key` is already among those gathered for the table (an upsert of the same
    /// row twice, which one statement cannot do) starts a new statement.
    func holdRow(_ insert: PostgresRowInsert, key: PostgresRowInsert.Key? = nil, _ bind: @escaping (inout PostgresBindings) -> Void) {
        let index = gathering.firstIndex { $0.insert == insert } ?? {
            gathering.append(GatheredRows(insert: insert))
            return gathering.count - 1
        }()
        if gathering[index].rows.count == PostgresRowInsert.mostRows || key.map(gathering[index].keys.contains) == true {
            held.append(gathering[index].statement)
            gathering[index] = GatheredRows(insert: insert)
        }
        gathering[index].rows.append((marks - 1, bind))
        if let key { gathering[index].keys.insert(key) }
    }

    /// Gives the rows gathered for `tables` (all of them for `nil`) their statements, held in the order their tables
    /// got their first row.
    private func holdGatheredRows(of tables: [String]? = nil) {
        guard !gathering.isEmpty else { return }
        guard let tables else {
            held += gathering.map(\.statement)
            gathering = []
            return
        }
        for rows in gathering where tables.contains(rows.insert.table) { held.append(rows.statement) }
        gathering.removeAll { tables.contains($0.insert.table) }
    }

    /// The point after the statements given so far; what is given from now on, to the next mark, is its owner's.
    func mark() -> Mark {
        defer { marks += 1 }
        return Mark(position: sent + held.count, owner: marks)
    }

    /// Whether ``failure`` came from a statement given at or after `mark`, not counting gathered inserts (see
    /// ``failedRowOwners``).
    func failed(atOrAfter mark: Mark) -> Bool {
        guard failedRowOwners == nil else { return false }
        return failedPosition.map { $0 >= mark.position } ?? false
    }

    /// Whether ``failure`` came from a statement given before `mark`.
    func failed(before mark: Mark) -> Bool {
        guard failedRowOwners == nil else { return false }
        return failedPosition.map { $0 < mark.position } ?? false
    }

    /// Drops the statements and rows given since `mark`; returns whether the server has none of them — none was sent
    /// (with a read), and none is in a gathered insert with rows given before the mark — so that nothing needs taking
    /// back there. (Reads sent since change nothing, and rows given before the mark stay, wherever they are placed.)
    func discard(since mark: Mark) -> Bool {
        for index in gathering.indices {
            gathering[index].rows.removeAll { $0.owner >= mark.owner }
        }
        gathering.removeAll { $0.rows.isEmpty }
        var kept: [HeldStatement] = []
        for statement in held {
            if statement.owners.upperBound < mark.owner {
                kept.append(statement)
            } else if statement.owners.lowerBound < mark.owner {
                // An insert of rows given on both sides of the mark cannot be split.
                return false
            }
        }
        held = kept
        return latestOwnerSent.map { $0 < mark.owner } ?? true
    }

    /// Sends what is held, then `query`, and returns the rows of `query`.
    ///
    /// - Parameter tables: The tables `query` reads, when it names them all: only their gathered rows go first.
    func rows(_ query: PostgresQuery, reading tables: [String]? = nil) throws(StoreError) -> [PostgresRow] {
        holdGatheredRows(of: tables)
        return try send([query], settlingRows: false).last?.rows ?? []
    }

    /// Sends what is held, if anything.
    func flush() throws(StoreError) {
        holdGatheredRows()
        guard !held.isEmpty else { return }
        _ = try send([])
    }

    /// Sends what is held, then `queries`, waits for all of them, and returns the results of `queries`.
    ///
    /// - Parameter tenants: The tenants, when the last of `queries` is the `COMMIT`: its failure may have taken
    ///   effect, and is described so.
    func send(_ queries: [PostgresQuery], committing tenants: [String]? = nil) throws(StoreError) -> [PostgresQueryResult] {
        try send(queries, committing: tenants, settlingRows: true)
    }

    private func send(_ queries: [PostgresQuery], committing tenants: [String]? = nil, settlingRows: Bool) throws(StoreError) -> [PostgresQueryResult] {
        if settlingRows { holdGatheredRows() }
        let batch = held + queries.map { HeldStatement(query: $0, answered: nil, owners: marks - 1...marks - 1) }
        let firstPosition = sent
        if let latest = held.map(\.owners.upperBound).max() { latestOwnerSent = max(latestOwnerSent ?? latest, latest) }
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
                let described = if let tenants, index == batch.count - 1 {
                    PostgresFailure.describeCommit(error, tenants: tenants, on: session.configuration)
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
            let statement = batch[failed.index]
            note(failed.error, at: firstPosition + failed.index, rowOwners: statement.gathered ? statement.owners : nil)
            throw failed.error
        }
        return Array(results.suffix(queries.count))
    }

    /// Keeps the first failure, where it happened, and whose rows the statement held if it was a gathered insert.
    private func note(_ error: StoreError, at position: Int, rowOwners: ClosedRange<Int>? = nil) {
        guard failure == nil else { return }
        failure = error
        failedPosition = position
        failedRowOwners = rowOwners
    }
}

/// A multi-row `INSERT` a ``PostgresPipeline`` gathers rows for: the table, its columns, and what follows the rows
/// (an `ON CONFLICT` clause, or nothing).
struct PostgresRowInsert: Equatable {
    let table: String
    let columns: [String]
    let conflict: String

    var columnCount: Int { columns.count }

    /// What identifies a row of an upsert: its tenant and identifier.
    struct Key: Hashable {
        let tenant: String
        let id: Int64
    }

    /// The most rows in one statement: PostgreSQL takes at most 65,535 values a statement, and past a few hundred
    /// rows a statement saves no more round trips worth having.
    static let mostRows = 1_000
}

/// A statement a ``PostgresPipeline`` holds: what to do with its answer, and whose writes it carries (see
/// ``PostgresPipeline/Mark/owner``).
private struct HeldStatement {
    let query: PostgresQuery
    let answered: ((PostgresQueryResult) throws(StoreError) -> Void)?
    /// The owners of what it writes: the mark current when it was given, or, for a gathered insert, those of its rows.
    let owners: ClosedRange<Int>
    /// Whether it is a gathered insert.
    var gathered = false
}

/// The rows gathered for one ``PostgresRowInsert``.
private struct GatheredRows {
    let insert: PostgresRowInsert
    /// Each row's owner (see ``PostgresPipeline/Mark/owner``) and what binds its values.
    var rows: [(owner: Int, bind: (inout PostgresBindings) -> Void)] = []
    /// The keys of the rows, for an upsert; empty otherwise.
    var keys: Set<PostgresRowInsert.Key> = []

    /// `INSERT INTO table (columns) VALUES ($1, …), (…), … conflict`, with the owners of its rows.
    var statement: HeldStatement {
        let width = insert.columnCount
        var sql = "INSERT INTO \(insert.table) (\(insert.columns.joined(separator: ", "))) VALUES "
        sql.reserveCapacity(sql.utf8.count + rows.count * width * 7 + insert.conflict.utf8.count + 1)
        var binds = PostgresBindings(capacity: rows.count * width)
        for (index, row) in rows.enumerated() {
            sql += index == 0 ? "(" : ", ("
            for column in 0..<width {
                if column > 0 { sql += ", " }
                sql += "$\(index * width + column + 1)"
            }
            sql += ")"
            row.bind(&binds)
        }
        precondition(binds.count == rows.count * width, "A row of \(insert.table) binds one value per column.")
        if !insert.conflict.isEmpty { sql += " " + insert.conflict }
        let owners = rows.map(\.owner)
        return HeldStatement(query: PostgresQuery(unsafeSQL: sql, binds: binds), answered: nil, owners: owners.min()!...owners.max()!, gathered: true)
    }
}
