import AppStoreEngine
public import ServiceLifecycle

/// What a server's stores do between requests — each store's notification sender, its wakes for renewals and expiries
/// due (`StoreWakeups`), the counting of its events at `/metrics`, and the closing of idle tenants
/// (``TenantDirectory/closeIdleTenants(idleFor:)``) — as one `Service`, which the server's `ServiceGroup` runs beside
/// its listeners.
///
/// ``StoreServer/services(onListening:onListenerFailure:)`` puts it first in the group, so a graceful shutdown
/// (SIGINT, SIGTERM, or `ServiceGroup.triggerGracefulShutdown()`) ends things in this order:
/// 1. the listeners stop accepting connections and answer the requests in flight;
/// 2. then this service stops waking the stores for their due events (a renewal under way completes), then stops every
///    sender, each once the attempt under way is answered and saved, and stops counting;
/// 3. last, it closes every store's storage (`Storage.close()`): a PostgreSQL store's connections close once no other
///    store in the process uses them; then the group returns.
///
/// A store the server served is not usable afterwards: its storage is closed.
///
/// A store joins when it opens: the server's own when the service starts, each tenant as ``TenantDirectory`` opens it
/// (``adopt(_:)``). Nothing of it runs before ``run()`` or after a shutdown began; the server's listeners open once it
/// runs (``waitUntilRunning()``).
public actor StoreService: Service {
    /// Where the stores' events are counted; `nil` counts nothing.
    private let metrics: StoreMetrics?
    /// The stores that joined, by tenant: a store opened again (after a reset) replaces the one before.
    private var stores: [String: TenantDirectory.Tenant] = [:]
    /// Whether the service waits for ``run()`` (stores that join meanwhile start with it), runs, or has stopped.
    private var phase = Phase.waiting

    /// The directory whose idle tenants the service closes, and how often it looks.
    private var idleSweep: (directory: TenantDirectory, interval: Duration)?

    /// Who waits for the stores' work to run: the listeners, which open only then.
    private var waiters: [CheckedContinuation<Void, Never>] = []

    private enum Phase {
        case waiting, running, stopped
    }

    /// Creates the service; stores join with ``adopt(_:)``.
    ///
    /// - Parameter metrics: Where the stores' purchases, renewals and refunds are counted; `nil` counts nothing.
    public init(metrics: StoreMetrics?) {
        self.metrics = metrics
    }

    /// Puts a store's work under the service: its events are counted and its notification sender runs from now (or
    /// from ``run()``, for a store that joins earlier) until the shutdown. A store of a tenant that already joined
    /// replaces it; the earlier store's sender stops first. A store that joins once the shutdown began is ignored.
    public func adopt(_ store: TenantDirectory.Tenant) async {
        guard phase != .stopped else { return }
        let tenant = store.engine.tenantID
        if let previous = stores[tenant] {
            if previous.engine !== store.engine { await previous.engine.stopWaking() }
            if let sender = previous.notificationSender, sender !== store.notificationSender { await sender.stop() }
        }
        stores[tenant] = store
        if phase == .running { await start(store) }
    }

    /// Takes a deleted tenant's store out: its sender and wakes stop, its events are no longer counted and its metrics
    /// go, and the service holds it no more.
    public func forget(_ store: TenantDirectory.Tenant) async {
        await remove(store, removingMetrics: true)
    }

    /// Takes out the store of a tenant closed while idle: as ``forget(_:)``, but its counts stay at `/metrics`, to go
    /// on when the tenant opens again.
    public func close(_ store: TenantDirectory.Tenant) async {
        await remove(store, removingMetrics: false)
    }

    private func remove(_ store: TenantDirectory.Tenant, removingMetrics: Bool) async {
        let tenant = store.engine.tenantID
        guard stores[tenant]?.engine === store.engine else { return }
        stores[tenant] = nil
        await store.engine.stopWaking()
        await store.notificationSender?.stop()
        metrics?.stopFollowing(tenant: tenant, removingMetrics: removingMetrics)
    }

    /// Has the service close `directory`'s idle tenants (``TenantDirectory/closeIdleTenants(idleFor:)``) every
    /// `interval` while it runs.
    public func closeIdleTenants(of directory: TenantDirectory, every interval: Duration) {
        idleSweep = (directory, interval)
    }

    /// Runs the stores' work until the group shuts down (or is cancelled), then stops it: each sender finishes and
    /// saves the attempt under way, then every store's storage closes, before this returns.
    public func run() async throws {
        guard phase == .waiting else { return }
        phase = .running
        for store in stores.values { await start(store) }
        resumeWaiters()
        // Returns when the group begins its graceful shutdown; throws when it is cancelled. Either way the work stops.
        await withTaskGroup(of: Void.self) { group in
            if let sweep = idleSweep {
                group.addTask {
                    while (try? await Task.sleep(for: sweep.interval)) != nil {
                        await sweep.directory.closeIdleTenants()
                    }
                }
            }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        // The directory holds this service too: let go of it, so neither outlives the server.
        idleSweep = nil
        phase = .stopped
        resumeWaiters()
        for store in stores.values { await store.engine.stopWaking() }
        for store in stores.values { await store.notificationSender?.stop() }
        metrics?.stopFollowing()
        for store in stores.values { await store.engine.storage.close() }
    }

    /// Returns once the stores' work runs — their events are counted and their senders started — or the service
    /// stopped: a listener waits for this before it accepts connections, so the first request's purchase is counted.
    public func waitUntilRunning() async {
        guard phase == .waiting else { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func resumeWaiters() {
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }

    private func start(_ store: TenantDirectory.Tenant) async {
        await metrics?.follow(store.engine)
        await store.notificationSender?.start()
    }
}
