import AppStoreEngine
import Synchronization

/// One caller's write transaction, waiting to run in a group commit of its tenant (see ``PostgresCommitQueues``).
final class PostgresGroupMember: Sendable {
    /// What a member waiting in the queue is told.
    enum Turn: Sendable {
        /// Its transaction ran in another caller's group: its outcome is delivered.
        case finished
        /// The group before it ended with members still waiting: it runs the next group, as its first member.
        case lead
    }

    /// Runs the caller's body inside the group's transaction; returns what delivers its result, called once the
    /// group committed.
    let run: @Sendable (any StorageTransaction) throws -> @Sendable () -> Void
    /// Delivers a failure to the caller.
    private let deliverFailure: @Sendable (any Error) -> Void

    private struct State {
        /// Whether the caller's outcome was delivered: each member gets exactly one.
        var resolved = false
        var turn: Turn?
        var waiting: CheckedContinuation<Turn, Never>?
    }
    private let state = Mutex(State())

    init(
        run: @escaping @Sendable (any StorageTransaction) throws -> @Sendable () -> Void,
        fail: @escaping @Sendable (any Error) -> Void
    ) {
        self.run = run
        deliverFailure = fail
    }

    /// Delivers the result `run` returned, unless an outcome was delivered already.
    func succeed(_ deliver: @Sendable () -> Void) {
        if resolve() { deliver() }
    }

    /// Delivers `error`, unless an outcome was delivered already.
    func fail(_ error: any Error) {
        if resolve() { deliverFailure(error) }
    }

    /// Whether the member's outcome was delivered.
    var isResolved: Bool {
        state.withLock { $0.resolved }
    }

    private func resolve() -> Bool {
        state.withLock { state in
            defer { state.resolved = true }
            return !state.resolved
        }
    }

    /// Waits until the member's group ran, or until it is its turn to run a group.
    func turn() async -> Turn {
        await withCheckedContinuation { continuation in
            let turn = state.withLock { state -> Turn? in
                if state.turn == nil { state.waiting = continuation }
                return state.turn
            }
            if let turn { continuation.resume(returning: turn) }
        }
    }

    /// Tells the member, waiting or not yet, what ``turn()`` returns.
    func hand(_ turn: Turn) {
        let waiting = state.withLock { state in
            state.turn = turn
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: turn)
    }
}

/// The write transactions waiting for each tenant, so that those asked for at the same time commit together: a
/// group commit, as `SQLiteStorage`'s.
///
/// A tenant's transactions take turns on its row lock whatever happens, each with its own `BEGIN`, lock, exchanges
/// and `COMMIT`, and each of its waiters holds a connection and a thread meanwhile. Grouped, the transactions that
/// arrived while one ran run next on one connection, in one PostgreSQL transaction: one lock, one commit, and each
/// caller's outcome its own (see `PostgresSession.transaction(tenant:origin:group:)`).
/// Tenants proceed side by side, each group on a connection of its own.
///
/// Nobody runs the queues: the caller that finds its tenant idle leads, running groups on a leased connection, and
/// when its group ends with callers still waiting it hands the lead to the first of them, so each caller runs at most
/// the group it is in.
final class PostgresCommitQueues: Sendable {
    /// The most transactions committed together, so that a flood of them still commits in steps.
    let groupLimit: Int
    /// The members waiting, by tenant; a tenant is here while a group of it is being run.
    private let pending = Mutex<[String: [PostgresGroupMember]]>([:])

    init(groupLimit: Int = 64) {
        self.groupLimit = groupLimit
    }

    /// Queues `member`: `true` when no group of the tenant is under way and the caller is to lead at once.
    func submit(_ member: PostgresGroupMember, tenant: String) -> Bool {
        pending.withLock { pending in
            guard pending[tenant] != nil else {
                pending[tenant] = [member]
                return true
            }
            pending[tenant]!.append(member)
            return false
        }
    }

    /// How many members of the tenant wait for a group to run in.
    func waiting(tenant: String) -> Int {
        pending.withLock { $0[tenant]?.count ?? 0 }
    }

    /// The next group of the tenant, its leader first, taken off the queue.
    func takeGroup(tenant: String) -> [PostgresGroupMember] {
        pending.withLock { pending in
            guard let members = pending[tenant] else { return [] }
            let group = Array(members.prefix(groupLimit))
            pending[tenant] = Array(members.dropFirst(group.count))
            return group
        }
    }

    /// Ends a group whose outcomes were all delivered: tells its members other than the leader so, and hands the
    /// lead to the first member still waiting, if any.
    func groupEnded(_ group: [PostgresGroupMember], tenant: String) {
        let next = pending.withLock { pending -> PostgresGroupMember? in
            guard let first = pending[tenant]?.first else {
                pending[tenant] = nil
                return nil
            }
            return first
        }
        for member in group.dropFirst() { member.hand(.finished) }
        next?.hand(.lead)
    }
}
