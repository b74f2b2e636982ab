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
/// PostgreSQL aborts a transaction at its first failed statement, and refuses every statement after it; the first
/// failure is the one thrown, and it is kept: a transaction that saw one is never committed, even if the body that
/// got it went on (see ``failure``). Used on the transaction's thread only.
final class PostgresPipeline {
    let session: PostgresSession
    /// Statements not sent yet, each with what to do with its answer.
    private var held: [(query: PostgresQuery, answered: ((PostgresQueryResult) throws(StoreError) -> Void)?)] = []
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
        held.append((query, answered))
    }

    /// The point after the statements given so far.
    func mark() -> Mark {
        Mark(position: sent + held.count)
    }

    /// Whether ``failure`` came from a statement given at or after `mark`.
    func failed(atOrAfter mark: Mark) -> Bool {
        failedPosition.map { $0 >= mark.position } ?? false
    }

    /// Drops the statements held since `mark`; returns whether none of those held since was sent (with a read), so
    /// that the server has none of them. (Reads sent since change nothing.)
    func discard(since mark: Mark) -> Bool {
        held.removeSubrange(min(held.count, max(0, mark.position - sent))...)
        return lastHeldSent.map { $0 < mark.position } ?? true
    }

    /// Sends what is held, then `query`, and returns the rows of `query`.
    func rows(_ query: PostgresQuery) throws(StoreError) -> [PostgresRow] {
        try send([query]).last?.rows ?? []
    }

    /// Sends what is held, if anything.
    func flush() throws(StoreError) {
        guard !held.isEmpty else { return }
        _ = try send([])
    }

    /// Sends what is held, then `queries`, waits for all of them, and returns the results of `queries`.
    ///
    /// - Parameter tenant: The tenant, when the last of `queries` is the `COMMIT`: its failure may have taken
    ///   effect, and is described so.
    func send(_ queries: [PostgresQuery], committing tenant: String? = nil) throws(StoreError) -> [PostgresQueryResult] {
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
