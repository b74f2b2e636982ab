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

    init(session: PostgresSession) {
        self.session = session
    }

    /// Holds a statement back until the next one that is waited for; `answered` gets its result then.
    func hold(_ query: PostgresQuery, answered: ((PostgresQueryResult) throws(StoreError) -> Void)? = nil) {
        held.append((query, answered))
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
        held = []
        started = true
        // Every statement is handed to the connection before waiting for the first answer.
        let answers = batch.map { session.connection.query($0.query, logger: session.logger) }
        var results: [PostgresQueryResult] = []
        var failed: StoreError?
        for (index, answer) in answers.enumerated() {
            do {
                results.append(try answer.wait())
            } catch {
                // Waiting for every answer, failed or not, leaves nothing of the batch in flight.
                guard failed == nil else { continue }
                failed = if let tenant, index == batch.count - 1 {
                    PostgresFailure.describeCommit(error, tenant: tenant, on: session.configuration)
                } else {
                    PostgresFailure.describe(error, running: batch[index].query.sql, on: session.configuration)
                }
            }
        }
        if let failed {
            failure = failure ?? failed
            throw failed
        }
        for (statement, result) in zip(batch, results) {
            do throws(StoreError) {
                try statement.answered?(result)
            } catch {
                failure = failure ?? error
                throw error
            }
        }
        return Array(results.suffix(queries.count))
    }
}
