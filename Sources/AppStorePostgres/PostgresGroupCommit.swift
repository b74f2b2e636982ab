import AppStoreEngine
import Synchronization

/// One caller's write transaction, waiting to run in a group commit (see ``PostgresCommitQueue``).
final class PostgresGroupMember: Sendable {
    /// What a member waiting in the queue is told.
    enum Turn: Sendable {
        /// Its transaction ran in another caller's group: its outcome is delivered.
        case finished
        /// It leads `group` (itself first): the caller runs it, then ends it (``PostgresCommitQueue/groupEnded(_:)``).
        case lead(_ group: [PostgresGroupMember])
    }

    /// The tenant whose lock the transaction holds.
    let tenant: String
    /// What the transaction will read, read ahead for the whole group with the locks.
    let expectedReads: ExpectedReads
    /// Runs the caller's body inside the group's transaction; returns what delivers its result, called once the
    /// group committed.
    let run: @Sendable (PostgresTransaction) throws -> @Sendable () -> Void
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
        tenant: String, expecting reads: ExpectedReads = .nothing, run: @escaping @Sendable (PostgresTransaction) throws -> @Sendable () -> Void,
        fail: @escaping @Sendable (any Error) -> Void
    ) {
        self.tenant = tenant
        expectedReads = reads
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

/// The write transactions waiting to run, so that those asked for at the same time commit together: a group commit,
/// as `SQLiteStorage`'s, across tenants.
///
/// A tenant's transactions take turns on its row lock whatever happens, each with its own `BEGIN`, lock, exchanges
/// and `COMMIT`, and a transaction waiting for a connection or a lock holds a caller meanwhile. Grouped, the
/// transactions that arrived while the connections were busy run next on one connection, in one PostgreSQL
/// transaction, whichever tenants they belong to: one statement locks all their tenants, one commits them, and each
/// caller's outcome is its own (see `PostgresSession.transaction(origin:group:)`).
///
/// At most a few groups run at once (``runningLimit(connections:)``), and a tenant is in one of them at a time, so its
/// transactions keep the order they were asked for in. A transaction that arrives while fewer groups run, and its
/// tenant is in none, runs at once, alone; the others wait and go together in the next group to start.
///
/// Nobody runs the queue: a caller that finds room leads, running its group on a leased connection, and when a group
/// ends, the first callers still waiting that can run lead the next groups, so each caller runs at most the group it
/// is in.
final class PostgresCommitQueue: Sendable {
    /// The most transactions committed together, so that a flood of them still commits in steps.
    let groupLimit: Int
    /// The most groups under way at once.
    let runningLimit: Int

    private struct State {
        /// The members waiting for a group, in the order they were asked for.
        var waiting: [PostgresGroupMember] = []
        /// The tenants with a member in a group under way.
        var busyTenants: Set<String> = []
        /// How many groups are under way.
        var running = 0
    }
    private let state = Mutex(State())

    /// How many groups run at once on `connections` connections: a quarter of them, at least two (one with a single
    /// connection). Fewer, larger groups cost the database less per operation than many small ones: on a 2-core machine
    /// shared with PostgreSQL, purchases over 100 tenants ran 25-30% faster with two groups at a time than with eight,
    /// at a third less of PostgreSQL's time each. Queued operations make the groups larger as they wait longer, and
    /// the other connections serve reads, which need no lock.
    static func runningLimit(connections: Int) -> Int {
        min(connections, max(2, connections / 4))
    }

    init(groupLimit: Int = 64, runningLimit: Int) {
        precondition(groupLimit >= 1 && runningLimit >= 1, "A commit queue runs at least one transaction at a time.")
        self.groupLimit = groupLimit
        self.runningLimit = runningLimit
    }

    /// Queues `member`: the group it is to lead at once (itself alone), or `nil` when it waits for its ``PostgresGroupMember/turn()``.
    func submit(_ member: PostgresGroupMember) -> [PostgresGroupMember]? {
        state.withLock { state in
            state.waiting.append(member)
            // Room for a group: nobody else waits who could run (see `groupEnded`), so the member leads alone.
            guard state.running < runningLimit, !state.busyTenants.contains(member.tenant) else { return nil }
            return Self.takeGroup(leader: state.waiting.count - 1, from: &state, limit: groupLimit)
        }
    }

    /// How many members of the tenant wait for a group to run in.
    func waiting(tenant: String) -> Int {
        state.withLock { state in state.waiting.count(where: { $0.tenant == tenant }) }
    }

    /// Ends a group whose outcomes were all delivered: tells its members other than the leader so, and hands the lead
    /// of the next groups to the first members waiting whose tenants are free, while there is room.
    func groupEnded(_ group: [PostgresGroupMember]) {
        let next = state.withLock { state -> [[PostgresGroupMember]] in
            state.running -= 1
            for member in group { state.busyTenants.remove(member.tenant) }
            var groups: [[PostgresGroupMember]] = []
            while state.running < runningLimit,
                  let leader = state.waiting.firstIndex(where: { !state.busyTenants.contains($0.tenant) }) {
                groups.append(Self.takeGroup(leader: leader, from: &state, limit: groupLimit))
            }
            return groups
        }
        for member in group.dropFirst() { member.hand(.finished) }
        for group in next { group[0].hand(.lead(group)) }
    }

    /// Takes the member at `leader` off the queue with those after it whose tenants are in no group under way, up to
    /// `limit` in all, in the order they were asked for, and counts the group as under way.
    ///
    /// Members before the leader are left waiting: their tenants are in a group under way, and none of theirs may
    /// overtake them.
    private static func takeGroup(leader: Int, from state: inout State, limit: Int) -> [PostgresGroupMember] {
        var group: [PostgresGroupMember] = [], left: [PostgresGroupMember] = []
        left.reserveCapacity(state.waiting.count)
        for (index, member) in state.waiting.enumerated() {
            if index >= leader, group.count < limit, !state.busyTenants.contains(member.tenant) {
                group.append(member)
            } else {
                left.append(member)
            }
        }
        state.waiting = left
        for member in group { state.busyTenants.insert(member.tenant) }
        state.running += 1
        return group
    }
}
