public import AppStoreEngine
import Foundation
public import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The engine's `Storage` in a PostgreSQL database: several `storekit serve` processes, on one machine or many,
/// share one store.
///
/// Every ``transaction(tenant:_:)`` locks its tenant's row in the `tenant` table (`INSERT … ON CONFLICT DO UPDATE`,
/// which takes the row lock `SELECT … FOR UPDATE` would) before it reads anything, so transactions of one tenant
/// run one at a time across every connection, process and server, as SQLite's `BEGIN IMMEDIATE` makes them on one
/// file; transactions of different tenants run side by side. The same row holds the tenant's next transaction
/// identifier, so identifiers are unique across servers. A ``read(tenant:_:)`` runs in one `REPEATABLE READ,
/// READ ONLY` transaction: one consistent snapshot, which takes no lock and waits for no writer.
///
/// The schema evolves through numbered, named migrations, applied when the storage opens (see
/// <doc:GettingStarted>).
///
/// Each transaction that writes announces its commit with `NOTIFY`, and ``changesByOthers(tenant:)`` follows the
/// other handles' announcements with `LISTEN`, so a purchase taken by one server reaches the devices and pages of
/// every other at once.
///
/// A storage is a handle on a set of connections. The stores `PostgresDatabase` opens on one URL in a process share
/// one set, each through a handle of its own; the connections close when the last handle does (``close()``), or is
/// released.
public final class PostgresStorage: ChangeSignalingStorage {
    /// The database this storage uses.
    public let configuration: Configuration
    /// The connections, threads and change listener this handle uses, perhaps with others.
    let connections: PostgresConnections
    private var logger: Logger { connections.logger }
    private var origin: UUID { connections.origin }
    /// Tells this handle's commits from those of other handles on the same connections (whose origin is the same).
    private let handle = UUID()
    /// Whether this handle was closed (``close()``): its operations fail from then on, whether or not other handles
    /// still use the connections.
    private let closed = Atomic(false)

    /// Opens the database a `postgres://` URL names, creating the schema it names and migrating it when needed.
    ///
    /// - Parameter url: `postgres://USER:PASSWORD@HOST:PORT/DATABASE`, with libpq's parameters (see ``Configuration``).
    /// - Throws: `StoreError.storageFailure` when the URL cannot be read or the database cannot be reached, logged into,
    ///   or migrated; the message names the database and what to check.
    public convenience init(url: String) throws(StoreError) {
        try self.init(configuration: Configuration(url: url))
    }

    /// Opens a database, creating the configuration's schema and migrating it when needed.
    ///
    /// Opening connects once, synchronously, to apply the migrations; later operations use a pool of at most
    /// ``Configuration/maximumConnections`` connections, opened as they are needed.
    ///
    /// - Parameters:
    ///   - configuration: Where the database is and how to connect.
    ///   - logger: Where the connection pool reports connections it opens, loses and retries; nothing by default.
    /// - Throws: `StoreError.storageFailure` when the database cannot be reached, logged into, or migrated.
    public init(configuration: Configuration, logger: Logger = PostgresStorage.silentLogger) throws(StoreError) {
        guard configuration.maximumConnections >= 1 else {
            throw .storageFailure("PostgreSQL storage needs at least one connection, and maximumConnections is \(configuration.maximumConnections): set it to 1 or more (8 by default).")
        }
        try PostgresSession.withSetupConnection(configuration, logger: logger) { session throws(StoreError) in
            try PostgresMigrations.apply(on: session)
        }
        self.configuration = configuration
        connections = PostgresConnections(configuration: configuration, logger: logger)
    }

    /// Another handle on `connections`, which stay open until it is closed too; `nil` when they closed already.
    package convenience init?(sharing storage: PostgresStorage) {
        self.init(sharing: storage.connections)
    }

    /// Another handle on `connections`, which stay open until it is closed too; `nil` when they closed already.
    init?(sharing connections: PostgresConnections) {
        guard connections.addHandle() else { return nil }
        configuration = connections.configuration
        self.connections = connections
    }

    /// A logger that drops everything: the default of ``init(configuration:logger:)``.
    public static let silentLogger = Logger(label: "openstorekit.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    deinit {
        if !closed.exchange(true, ordering: .relaxed), connections.removeHandle() { connections.closeInBackground() }
    }

    /// A signal after each transaction another handle — another process or server on the database, or another store
    /// of this process on the same connections — committed to `tenant` with changes in it, and one once the stream is
    /// heard (listening started, or had started already) and each time listening resumes after the connection was
    /// lost (what happened meanwhile is then unknown). Listening uses one connection of its own, outside the pool,
    /// opened when the first stream is asked for.
    public func changesByOthers(tenant: String) -> AsyncStream<Void> {
        connections.changeSubscribers.subscribe(tenant: tenant, handle: handle) { [configuration, origin, logger] subscribers in
            Task.detached { await subscribers.listen(configuration: configuration, ignoring: origin, logger: logger) }
        }
    }

    /// Runs `body` on one consistent snapshot of the tenant (`REPEATABLE READ, READ ONLY`); writers are not blocked
    /// meanwhile, and `body` sees none of what they commit after its first read.
    public func read<Result: Sendable>(tenant: String, _ body: @Sendable (any StorageReader) throws -> Result) async throws -> Result {
        try await onConnectionThread { session in try session.read(tenant: tenant, body) }
    }

    /// Runs `body` as one transaction holding the tenant's lock: no other transaction of the tenant, through any
    /// connection to the database, runs between its first read and its commit. A transaction that waits longer than
    /// ``Configuration/lockTimeout`` for the lock fails and changes nothing.
    ///
    /// Transactions asked for at the same time, of this tenant or of others, through any handle on the same
    /// connections, commit together (a group commit, see `PostgresCommitQueue`): when `body` throws, only what it
    /// wrote is rolled back, and the call returns once its writes are committed.
    public func transaction<Result: Sendable>(
        tenant: String, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result
    ) async throws -> Result {
        try await transaction(tenant: tenant, expecting: .nothing, body)
    }

    /// Runs `body` as ``transaction(tenant:_:)`` does; the accounts `reads` names are read for the whole group the
    /// transaction commits in, with the locks, so `body` reads them without a wait of its own.
    public func transaction<Result: Sendable>(
        tenant: String, expecting reads: ExpectedReads, _ body: @escaping @Sendable (any StorageTransaction) throws -> Result
    ) async throws -> Result {
        // Refused before it joins a group, whose other members may come through other handles.
        guard !closed.load(ordering: .relaxed) else { throw closedFailure }
        let outcome = Mutex<Swift.Result<Result, any Error>?>(nil)
        let member = PostgresGroupMember(tenant: tenant, expecting: reads) { [changeSubscribers = connections.changeSubscribers, handle] transaction in
            let changesBefore = transaction.changesWritten
            let result = try body(transaction)
            let wroteChanges = transaction.changesWritten != changesBefore
            return {
                outcome.withLock { $0 = .success(result) }
                // PostgreSQL's signal names the connections' origin, which the other handles on them share: told here.
                if wroteChanges { changeSubscribers.signalCommit(tenant: tenant, by: handle) }
            }
        } fail: { error in
            outcome.withLock { $0 = .failure(error) }
        }
        let queue = connections.commitQueue
        var group = queue.submit(member)
        if group == nil, case .lead(let next) = await member.turn() { group = next }
        if let group {
            // In a task of its own: the leader's caller being cancelled must not fail the others' transactions.
            await Task { [origin] in
                do {
                    try await onConnectionThread { session in
                        var remaining = group
                        while !remaining.isEmpty { remaining = session.transaction(origin: origin, group: remaining[...]) }
                    }
                } catch {
                    for member in group { member.fail(error) }
                }
            }.value
            queue.groupEnded(group)
        }
        guard let result = outcome.withLock({ $0 }) else {
            throw StoreError.storageFailure("A transaction on PostgreSQL at \(configuration) ended without an outcome; nothing is known of its writes.")
        }
        return try result.get()
    }

    /// The channel on which this storage's commits with changes are announced, once per PostgreSQL transaction with
    /// the payload "<origin> <tenant>": for tests.
    package var changeChannel: String { PostgresSession.changeChannel(schema: configuration.schema) }

    /// How many write transactions of `tenant` wait, in this process, for a group to run in: for tests.
    package func waitingTransactions(tenant: String) -> Int {
        connections.commitQueue.waiting(tenant: tenant)
    }

    /// The API key with the identifier, whichever tenant holds it: one statement on the primary key, outside any
    /// transaction, so it sees the latest commit of every server on the database.
    public func apiKey(id: String) async throws -> StoredAPIKey? {
        let rows = try await latestRows("SELECT key_id, issuer_id, public_key_pem, created, revoked, tenant FROM api_key WHERE key_id = \(id)")
        return try rows.first.map { row throws(StoreError) in try PostgresTransaction.storedAPIKey(row, on: configuration) }
    }

    /// The tenants with a stored catalog, sorted by name: one statement outside any transaction, so it sees the latest
    /// commit of every server on the database.
    public func tenantsWithCatalogs() async throws -> [String] {
        try await latestRows("SELECT tenant FROM tenant_catalog ORDER BY tenant").map { row throws(StoreError) in
            try PostgresTransaction.decode(String.self, row, on: configuration)
        }
    }

    /// Every tenant with a row in any of the database's tables, sorted by name: one statement outside any transaction.
    public func tenantsWithState() async throws -> [String] {
        try await latestRows("""
            SELECT id FROM tenant
            UNION SELECT tenant FROM account UNION SELECT tenant FROM store_clock
            UNION SELECT tenant FROM tenant_settings UNION SELECT tenant FROM notification_destinations WHERE body IS NOT NULL
            UNION SELECT tenant FROM api_key UNION SELECT tenant FROM tenant_catalog UNION SELECT tenant FROM retention_messaging
            ORDER BY 1
            """).map { row throws(StoreError) in try PostgresTransaction.decode(String.self, row, on: configuration) }
    }

    /// The rows of one statement run outside any transaction, on the latest commit.
    private func latestRows(_ query: PostgresQuery) async throws(StoreError) -> [PostgresRow] {
        guard !closed.load(ordering: .relaxed), connections.beginOperation() else { throw closedFailure }
        defer { connections.endOperation() }
        do {
            return try await connections.client.query(query, logger: logger).collect()
        } catch {
            if connections.isClosed { throw closedFailure }
            throw PostgresFailure.describe(error, running: query.sql, on: configuration)
        }
    }

    /// The tenant's clock state, read synchronously: what a store being opened needs before its first operation.
    ///
    /// - Parameter tenant: The tenant whose clock to read.
    /// - Throws: `StoreError.storageFailure` when the database cannot be reached or read.
    public func clockState(tenant: String) throws(StoreError) -> StoreClockState {
        try PostgresSession.withSetupConnection(configuration, logger: logger) { session throws(StoreError) in
            do {
                return try session.read(tenant: tenant) { try $0.clockState() }
            } catch {
                throw PostgresFailure.describe(error, running: nil, on: configuration)
            }
        }
    }

    /// The certificate authority every server on the database signs with, as PEM files keyed by name
    /// (`CertificateAuthority.pemFiles`): the one stored, or else the one `candidate` returns, stored now. Of servers
    /// storing at the same moment, one wins and all get its authority. Read synchronously, on the first signature.
    ///
    /// - Parameter candidate: Makes the authority to store when the database holds none; not called otherwise.
    /// - Throws: `StoreError.storageFailure` when the database cannot be reached or holds an unreadable authority;
    ///   what `candidate` throws.
    public func certificateAuthority(
        storingIfAbsent candidate: () throws -> [String: String]
    ) throws -> [String: String] {
        try PostgresSession.withSetupConnection(configuration, logger: logger) { session throws(StoreError) in
            func stored() throws(StoreError) -> [String: String]? {
                guard let row = try session.rows("SELECT pem_files FROM certificate_authority").first else { return nil }
                do {
                    return try JSONDecoder().decode([String: String].self, from: Data(try row.decode(String.self).utf8))
                } catch {
                    throw .storageFailure(
                        "The certificate authority stored in \(configuration) cannot be read (\(error)). Delete its row (DELETE FROM certificate_authority) to let the next server store its own, and redistribute the new root."
                    )
                }
            }
            if let files = try stored() { return files }
            let files: [String: String]
            do {
                files = try candidate()
            } catch let error as StoreError {
                throw error
            } catch {
                throw .signingFailure("The certificate authority to share through \(configuration) could not be made: \(error)")
            }
            guard let json = try? JSONEncoder().encode(files) else {
                throw .signingFailure("The certificate authority's files cannot be written as JSON.")
            }
            let encoded = String(decoding: json, as: UTF8.self)
            try session.execute("INSERT INTO certificate_authority (pem_files) VALUES (\(encoded)) ON CONFLICT DO NOTHING")
            guard let winner = try stored() else {
                throw .storageFailure("The certificate authority just stored in \(configuration) is gone; was its row deleted meanwhile?")
            }
            return winner
        }
    }

    /// Ends this handle now rather than when it is released: operations through it fail from then on. When it is the
    /// last handle on its connections, they close, and this returns once they are closed and their threads ended.
    public func close() async {
        guard !closed.exchange(true, ordering: .relaxed), connections.removeHandle() else { return }
        await connections.close()
    }

    /// Drops the schema `configuration` names, and every table of the stores in it; does nothing when it names none.
    /// Close every storage on the schema first. Blocks its thread until PostgreSQL answers.
    package static func dropSchema(of configuration: Configuration) throws(StoreError) {
        guard let schema = configuration.schema else { return }
        var unscoped = configuration
        unscoped.schema = nil
        try PostgresSession.withSetupConnection(unscoped, logger: silentLogger) { session throws(StoreError) in
            try session.execute("DROP SCHEMA IF EXISTS \(unescaped: PostgresSession.quoted(schema)) CASCADE")
        }
    }

    /// What an operation through a closed handle fails with.
    private var closedFailure: StoreError {
        .storageFailure("The PostgreSQL storage for \(configuration) was closed; open a new one.")
    }

    /// Leases a connection, then runs `work` on one of the storage's threads with it.
    ///
    /// A storage closure is synchronous and runs while its transaction holds the tenant's lock, so it must not wait
    /// for anything but the database: each of its queries blocks its thread until PostgreSQL answers. That thread is
    /// one of ours. A thread of Swift's cooperative pool would starve the tasks that drive the server (two of them on
    /// a two-core machine), and an event-loop thread would wait for answers that only that loop can deliver. Leasing
    /// happens before, asynchronously, so a transaction waiting for a connection holds no thread.
    private func onConnectionThread<Result: Sendable>(_ work: @Sendable (PostgresSession) throws -> Result) async throws -> Result {
        guard !closed.load(ordering: .relaxed), connections.beginOperation() else { throw closedFailure }
        defer { connections.endOperation() }
        var leased = false
        do {
            return try await connections.client.withConnection { connection in
                leased = true
                let session = PostgresSession(connection: connection, configuration: configuration, logger: logger)
                return try await withoutActuallyEscaping(work) { escapable in
                    // The closure only escapes for the time of the call: the thread pool drops it before we resume,
                    // and if the pool never runs it we drop it here.
                    let handoff = Handoff(escapable)
                    defer { _ = handoff.take() }
                    return try await connections.threads.runIfActive {
                        guard let work = handoff.take() else { throw StoreError.storageFailure("A storage operation was run twice.") }
                        return try work(session)
                    }
                }
            }
        } catch where !leased || error is NIOThreadPoolError.ThreadPoolInactive {
            // No connection, or no thread, for the operation: nothing ran. Whatever else is thrown comes from the
            // session, which describes its own errors, or from `work`, whose errors are the caller's.
            if closed.load(ordering: .relaxed) || connections.isClosed { throw closedFailure }
            if Task.isCancelled {
                throw StoreError.storageFailure("A store operation on PostgreSQL at \(configuration) was cancelled while it waited for a connection; nothing was changed.")
            }
            throw PostgresFailure.describe(error, running: nil, on: configuration)
        }
    }
}

/// What the handles on one database in a process share: the connection pool and the task that runs it, the threads
/// transactions run on, and the listener for other processes' commits. It closes once no handle is left.
final class PostgresConnections: Sendable {
    let configuration: PostgresStorage.Configuration
    let logger: Logger
    let client: PostgresClient
    /// Runs the client's connection pool until the last handle goes.
    ///
    /// The client is a `Service`, but a storage serves commands and embedders that run no service group, so the
    /// storage runs it; a server closes its stores' storage as the last step of its shutdown (`StoreService`).
    private let clientTask: Task<Void, Never>
    /// The threads transactions run on; as many as connections.
    let threads: NIOThreadPool
    /// These connections, as their commits name them to other processes.
    let origin = UUID()
    /// Who follows other processes' commits, and the task that listens for them.
    let changeSubscribers = ChangeSubscribers()
    /// The write transactions waiting to run, committed in groups.
    let commitQueue: PostgresCommitQueue
    /// Who uses the connections: handles, and operations under way.
    private struct Use {
        /// How many handles use the connections: 1 for the handle that opened them, 0 once they closed.
        var handles = 1
        /// How many operations run on them now.
        var operations = 0
        /// Whether they are closing: no operation starts any more.
        var closing = false
        /// Who waits for the operations under way to end, to close the connections.
        var drained: CheckedContinuation<Void, Never>?
    }
    private let use = Mutex(Use())

    init(configuration: PostgresStorage.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        threads = NIOThreadPool(numberOfThreads: configuration.maximumConnections)
        threads.start()
        commitQueue = PostgresCommitQueue(runningLimit: PostgresCommitQueue.runningLimit(connections: configuration.maximumConnections))
        client = PostgresClient(configuration: configuration.clientConfiguration, backgroundLogger: logger)
        clientTask = Task.detached { [client] in await client.run() }
    }

    /// Counts one more handle; `false` when the connections closed already.
    func addHandle() -> Bool {
        use.withLock { use in
            guard use.handles > 0 else { return false }
            use.handles += 1
            return true
        }
    }

    /// Counts one handle fewer: `true` when it was the last, and the connections are to close.
    func removeHandle() -> Bool {
        use.withLock { use in
            use.handles -= 1
            return use.handles == 0
        }
    }

    /// Whether the last handle went.
    var isClosed: Bool { use.withLock { $0.handles == 0 } }

    /// Counts an operation that starts: `false`, counting nothing, once the connections are closing.
    func beginOperation() -> Bool {
        use.withLock { use in
            guard !use.closing else { return false }
            use.operations += 1
            return true
        }
    }

    /// Counts an operation that ended, the last one a closing waits for.
    func endOperation() {
        let drained = use.withLock { use -> CheckedContinuation<Void, Never>? in
            use.operations -= 1
            guard use.operations == 0 else { return nil }
            defer { use.drained = nil }
            return use.drained
        }
        drained?.resume()
    }

    /// Refuses new operations, waits for those under way (a closed connection would leave a statement waiting for
    /// its answer forever), stops listening, closes the connections, and returns once they are closed and the
    /// threads ended.
    func close() async {
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            let idle = use.withLock { use in
                use.closing = true
                if use.operations > 0 { use.drained = drained }
                return use.operations == 0
            }
            if idle { drained.resume() }
        }
        changeSubscribers.stopListening()
        clientTask.cancel()
        await clientTask.value
        try? await threads.shutdownGracefully()
    }

    /// Closes as ``close()`` does, without waiting: for a handle released without closing.
    func closeInBackground() {
        use.withLock { $0.closing = true }
        // No operation is under way: each holds a handle, and the last one went. Cancelling the client's run closes its connections; the threads end once idle.
        changeSubscribers.stopListening()
        clientTask.cancel()
        threads.shutdownGracefully { _ in }
    }
}

/// The streams of ``PostgresStorage/changesByOthers(tenant:)`` by tenant, and the task that feeds them.
final class ChangeSubscribers: Sendable {
    /// A stream's continuation, and the handle that asked for it.
    private struct Subscriber {
        let handle: UUID
        let continuation: AsyncStream<Void>.Continuation
    }

    private struct State {
        var subscribers: [String: [UUID: Subscriber]] = [:]
        var listener: Task<Void, Never>?
        /// Whether the listener's connection listens now: a stream that joins then is signalled at once.
        var listening = false
        var stopped = false
    }

    private let state = Mutex(State())

    /// A new stream for `tenant`, asked for by `handle`; the first one starts the listener `start` makes.
    func subscribe(tenant: String, handle: UUID, start: (ChangeSubscribers) -> Task<Void, Never>) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers[tenant]?.removeValue(forKey: id) }
        }
        // Finishing a stream runs its termination handler, which takes the lock: never finish while holding it.
        let (subscribed, listening) = state.withLock { state in
            guard !state.stopped else { return (false, false) }
            state.subscribers[tenant, default: [:]][id] = Subscriber(handle: handle, continuation: continuation)
            if state.listener == nil { state.listener = start(self) }
            return (true, state.listening)
        }
        if !subscribed { continuation.finish() }
        if listening { continuation.yield() }
        return stream
    }

    func stopListening() {
        let (listener, continuations) = state.withLock { state in
            state.stopped = true
            defer { state.subscribers = [:] }
            return (state.listener, state.subscribers.values.flatMap(\.values).map(\.continuation))
        }
        listener?.cancel()
        for continuation in continuations { continuation.finish() }
    }

    private func signal(tenant: String?, listening: Bool? = nil) {
        let subscribers = state.withLock { state in
            if let listening { state.listening = listening }
            return tenant.map { state.subscribers[$0].map { Array($0.values) } ?? [] } ?? state.subscribers.values.flatMap(\.values)
        }
        for subscriber in subscribers { subscriber.continuation.yield() }
    }

    /// Signals the streams of `tenant` that other handles of this process asked for: `handle` committed changes to it.
    /// Only while the listener listens, as PostgreSQL's signals: a stream's first signal says every commit is heard.
    func signalCommit(tenant: String, by handle: UUID) {
        let subscribers = state.withLock { state in
            state.listening ? state.subscribers[tenant].map { $0.values.filter { $0.handle != handle } } ?? [] : []
        }
        for subscriber in subscribers { subscriber.continuation.yield() }
    }

    /// Listens on the change channel until cancelled, reconnecting a second after a lost connection, and signals the
    /// tenants of other handles' commits; every tenant once each time listening (re)starts.
    func listen(configuration: PostgresStorage.Configuration, ignoring origin: UUID, logger: Logger) async {
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: try configuration.connectionConfiguration, id: 0, logger: logger
                )
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: PostgresSession.changeChannel(schema: configuration.schema)) { notifications in
                    signal(tenant: nil, listening: true)
                    for try await notification in notifications {
                        // "<origin> <tenant>", written by `PostgresSession.transaction(tenant:origin:_:)`.
                        let payload = notification.payload
                        guard let space = payload.firstIndex(of: " "), UUID(uuidString: String(payload[..<space])) != origin else { continue }
                        signal(tenant: String(payload[payload.index(after: space)...]))
                    }
                }
            } catch {
                logger.debug("Listening for other servers' changes failed: \(error); trying again in a second.")
            }
            state.withLock { $0.listening = false }
            try? await Task.sleep(for: .seconds(1))
        }
    }
}

/// Hands a closure that must not outlive a call to another thread, and takes it back.
private final class Handoff<Argument, Result>: Sendable {
    private let work: Mutex<(@Sendable (Argument) throws -> Result)?>

    init(_ work: @escaping @Sendable (Argument) throws -> Result) {
        self.work = Mutex(work)
    }

    /// The closure, once: later calls get `nil`.
    func take() -> (@Sendable (Argument) throws -> Result)? {
        work.withLock { work in
            defer { work = nil }
            return work
        }
    }
}

extension PostgresStorage.Configuration {
    /// The settings every connection starts with: the schema, the lock timeout, and the URL's options.
    var startupParameters: [(String, String)] {
        var settings = serverSettings
        settings["application_name"] = applicationName
        if settings["lock_timeout"] == nil { settings["lock_timeout"] = "\(Int(lockTimeout / .milliseconds(1)))ms" }
        // A process that stops between two statements of a transaction (a debugger, SIGSTOP) would hold its tenant's
        // lock forever; the server ends such a session after a minute of silence. A process that dies loses its
        // connection, and the server rolls its transaction back at once.
        if settings["idle_in_transaction_session_timeout"] == nil { settings["idle_in_transaction_session_timeout"] = "60s" }
        if let schema { settings["search_path"] = PostgresSession.quoted(schema) }
        return settings.sorted { $0.key < $1.key }
    }

    /// The connection pool's configuration.
    var clientConfiguration: PostgresClient.Configuration {
        var client: PostgresClient.Configuration
        if host.hasPrefix("/") {
            client = PostgresClient.Configuration(
                unixSocketPath: socketPath, username: username, password: password, database: database
            )
        } else {
            client = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password, database: database, tls: clientTLS
            )
        }
        client.options.additionalStartupParameters = startupParameters
        client.options.connectTimeout = connectTimeout
        client.options.maximumConnections = maximumConnections
        client.options.minimumConnections = 0
        return client
    }

    /// The socket file in the directory ``host`` names.
    var socketPath: String { "\(host)/.s.PGSQL.\(port)" }

    private var clientTLS: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(tlsConfiguration)
        case .require, .verifyCA, .verifyFull: .require(tlsConfiguration)
        }
    }

    /// The certificate checks of the TLS mode, as libpq makes them.
    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = switch tls {
        case .disable, .prefer, .require: .none
        case .verifyCA: .noHostnameVerification
        case .verifyFull: .fullVerification
        }
        return configuration
    }
}
