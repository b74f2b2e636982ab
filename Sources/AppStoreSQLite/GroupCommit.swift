import GRDB
import Synchronization

/// Commits the transactions that callers start at the same time together, each in its own savepoint of one
/// SQLite transaction: a group commit.
///
/// A commit is most of what a small transaction costs (the WAL frames of every page it touched, and the checkpoints
/// they lead to), and a busy server's transactions touch the same few pages. Grouping them keeps every caller's
/// outcome its own: a transaction that throws is rolled back to its savepoint and only its caller sees the error;
/// the others' writes commit. Nobody hears of success before the group's commit is written. GRDB serializes writes
/// but commits each on its own, and SQLite has no group commit, hence this type.
///
/// Transactions run in the order they were submitted, each seeing what the ones before it wrote, exactly as if they
/// had committed one by one.
final class GroupCommit: Sendable {
    /// One caller's transaction, waiting for its turn.
    struct Transaction: Sendable {
        /// Runs the caller's work on the connection, inside the group's transaction; returns what tells the caller of
        /// its success, called once the group is committed.
        let run: @Sendable (Database) throws -> @Sendable () -> Void
        /// Tells the caller its transaction failed and left nothing behind.
        let fail: @Sendable (any Error) -> Void
    }

    private struct Queue {
        var pending: [Transaction] = []
        /// Whether a drain is scheduled on the writer: it takes whatever is pending until nothing is.
        var draining = false
    }

    private let writer: DatabasePool
    /// Checkpoints what the writer commits: kept here, as long as anything commits, because the writer's hook does
    /// not retain it.
    private let checkpointer: BackgroundCheckpointer
    private let queue = Mutex(Queue())
    /// The most transactions committed together, so that a flood of them still commits in steps.
    private let groupLimit: Int
    /// Called once each group's transaction has begun, before its first member runs.
    private let transactionBegan: @Sendable (Database) -> Void
    /// Writes what the group's transactions share (see `WriterMemory`) just before the commit.
    private let beforeCommit: @Sendable (Database) throws -> Void
    /// Called once each group's transaction has ended, with whether it committed (else it was rolled back).
    private let transactionEnded: @Sendable (Database, _ committed: Bool) -> Void

    init(
        writer: DatabasePool, checkpointer: BackgroundCheckpointer, groupLimit: Int = 64,
        transactionBegan: @escaping @Sendable (Database) -> Void,
        beforeCommit: @escaping @Sendable (Database) throws -> Void,
        transactionEnded: @escaping @Sendable (Database, _ committed: Bool) -> Void
    ) {
        self.writer = writer
        self.checkpointer = checkpointer
        self.groupLimit = groupLimit
        self.transactionBegan = transactionBegan
        self.beforeCommit = beforeCommit
        self.transactionEnded = transactionEnded
    }

    /// Returns once the checkpoint the commits so far started, if any, has ended.
    func checkpointsFinished() async {
        await checkpointer.idle()
    }

    /// Queues `transaction` to run on the writer connection, with whatever else is queued by then.
    func submit(_ transaction: Transaction) {
        let startsDrain = queue.withLock { queue in
            queue.pending.append(transaction)
            defer { queue.draining = true }
            return !queue.draining
        }
        if startsDrain {
            writer.asyncWriteWithoutTransaction { db in self.drain(db) }
        }
    }

    /// Commits groups of pending transactions until none are left.
    private func drain(_ db: Database) {
        while true {
            let group = queue.withLock { queue -> [Transaction] in
                guard queue.pending.count > groupLimit else {
                    defer { queue.pending = [] }
                    queue.draining = !queue.pending.isEmpty
                    return queue.pending
                }
                defer { queue.pending.removeFirst(groupLimit) }
                return Array(queue.pending.prefix(groupLimit))
            }
            if group.isEmpty { return }
            var remaining = group[...]
            while !remaining.isEmpty {
                remaining = commit(remaining, in: db)
            }
        }
    }

    /// Runs `group` in one immediate transaction, each in a savepoint, and commits it; returns the transactions that did
    /// not get to run because SQLite abandoned the whole transaction (an I/O error, a full disk).
    private func commit(_ group: ArraySlice<Transaction>, in db: Database) -> ArraySlice<Transaction> {
        do {
            try db.beginTransaction(.immediate)
        } catch {
            for transaction in group { transaction.fail(error) }
            return []
        }
        transactionBegan(db)
        var committed = false
        defer { transactionEnded(db, committed) }
        var outcomes: [@Sendable () -> Void] = []
        outcomes.reserveCapacity(group.count)
        // A group of one needs no savepoint: its failure rolls the whole transaction back.
        let savepoints = group.count > 1
        for index in group.indices {
            let transaction = group[index]
            do {
                if savepoints { try db.cachedStatement(sql: "SAVEPOINT groupMember").execute() }
                let succeed = try transaction.run(db)
                if savepoints { try db.cachedStatement(sql: "RELEASE groupMember").execute() }
                outcomes.append(succeed)
            } catch {
                guard db.isInsideTransaction, savepoints, (try? db.cachedStatement(sql: "ROLLBACK TO groupMember").execute()) != nil,
                      (try? db.cachedStatement(sql: "RELEASE groupMember").execute()) != nil
                else {
                    // SQLite ended the whole transaction, or cannot take back only this member: the ones run before
                    // it are rolled back with it.
                    if db.isInsideTransaction { try? db.rollback() }
                    for abandoned in group[...index] { abandoned.fail(error) }
                    return group[(index + 1)...]
                }
                outcomes.append { transaction.fail(error) }
            }
        }
        do {
            try beforeCommit(db)
            try db.commit()
            committed = true
        } catch {
            if db.isInsideTransaction { try? db.rollback() }
            for transaction in group { transaction.fail(error) }
            return []
        }
        for outcome in outcomes { outcome() }
        return []
    }
}
