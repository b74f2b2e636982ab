public import AppStoreEngine
import CoreMetrics
public import Prometheus
import Synchronization

/// What a server did, counted with swift-metrics and exported in Prometheus' text format at `GET /metrics`.
///
/// Give one to ``StoreServer/metrics`` and to each ``NotificationSender`` (`init(engine:destinations:destinationsFile:timeout:claimClock:metrics:logger:)`),
/// and have it ``follow(_:)`` every store the server opens. It records through a `PrometheusMetricsFactory` over its
/// own ``registry`` rather than the process-wide `MetricsSystem`, so every test can make its own and read exactly
/// what its server did; `storekit serve` makes one and bootstraps `MetricsSystem` with the same registry.
///
/// The metrics, by name:
/// - `openstorekit_http_requests_total` (`group`, `method`, `status`) and `openstorekit_http_request_duration_seconds`
///   (`group`, `method`): every request the server answered, by the route group it went to (`control`,
///   `server_api`, `device`, …), and how long it took.
/// - `openstorekit_purchases_total` (`tenant`, `result`): purchases (and repurchases) by the state they reached —
///   `purchased` once each completes, at once or after Ask to Buy or a resolved billing issue; `pending_approval`,
///   `interrupted`, `declined` and `failed` otherwise.
/// - `openstorekit_renewals_total` (`tenant`): subscription renewals, as the store's clock reaches them.
/// - `openstorekit_refunds_total` (`tenant`): refunded or revoked purchases and renewals (not the restores and family
///   shares revoked with them).
/// - `openstorekit_notification_attempts_total` and `openstorekit_notification_failures_total` (`tenant`, `result`):
///   attempts to send App Store Server Notifications, by Apple's `sendAttemptResult` (`SUCCESS`, `TIMED_OUT`, …);
///   failures are the attempts that did not succeed.
/// - `openstorekit_notification_outbox_depth` (`tenant`): the notifications waiting to be sent or retried, read
///   when the metrics are scraped.
public final class StoreMetrics: Sendable {
    /// The registry the metrics are kept in, and that `GET /metrics` renders.
    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// The stores followed, by tenant: the task that counts their events, and the engine, for the outbox depth.
    private let followed = Mutex<[String: (engine: StoreEngine, task: Task<Void, Never>)]>([:])

    /// The counters and timers made so far, by the tenant they count (`nil`: the server's requests) and then by label
    /// and dimensions. Making one asks the registry, which checks the name and every label each time: done for every
    /// request, that was a fiftieth of a purchase's CPU. By tenant, so a deleted tenant's go at once
    /// (``stopFollowing(tenant:)``).
    private let counters = Mutex<[String?: [MetricKey: CoreMetrics.Counter]]>([:])
    private let timers = Mutex<[String?: [MetricKey: CoreMetrics.Timer]]>([:])

    private struct MetricKey: Hashable {
        let label: String
        /// The dimensions' names and values, in turn.
        let dimensions: [String]
        /// The value of the `tenant` dimension, if any.
        let tenant: String?

        init(_ label: String, _ dimensions: [(String, String)]) {
            self.label = label
            self.dimensions = dimensions.flatMap { [$0.0, $0.1] }
            tenant = dimensions.first { $0.0 == "tenant" }?.1
        }
    }

    /// The most pending notifications `openstorekit_notification_outbox_depth` counts in one store; a deeper outbox
    /// reads as this many.
    public static let outboxDepthLimit = 10_000

    /// Creates metrics kept in `registry`.
    ///
    /// - Parameter registry: Where the metrics are kept; a new, empty one unless the process shares its own (as
    ///   `storekit serve` does with `MetricsSystem`).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests to a local store take microseconds to a few seconds.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.factory = factory
    }

    private func counter(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Counter {
        Self.metric(MetricKey(label, dimensions), in: counters) {
            CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
        }
    }

    private func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        Self.metric(MetricKey(label, dimensions), in: timers) {
            CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
        }
    }

    /// The metric made for `key` before, or the one `make` makes, kept for next time.
    private static func metric<Metric: Sendable>(
        _ key: MetricKey, in made: borrowing Mutex<[String?: [MetricKey: Metric]]>, _ make: () -> Metric
    ) -> Metric {
        made.withLock { made in
            if let metric = made[key.tenant]?[key] { return metric }
            let metric = make()
            made[key.tenant, default: [:]][key] = metric
            return metric
        }
    }

    deinit {
        followed.withLock { stores in
            for store in stores.values { store.task.cancel() }
        }
    }

    /// The metrics in Prometheus' text exposition format, as `GET /metrics` answers.
    public func exposition() -> String {
        registry.emitToString()
    }

    // MARK: Store events

    /// Counts the purchases, renewals and refunds of `engine` from now on, under its tenant's name.
    ///
    /// Returns once it listens, so everything the store does afterwards is counted. Following another store of the
    /// same tenant (one opened again after a reset) stops following the earlier one.
    public func follow(_ engine: StoreEngine) async {
        let events = await engine.events()
        let tenant = engine.tenantID
        let task = Task { [weak self] in
            for await event in events {
                self?.count(event, tenant: tenant)
            }
        }
        let previous = followed.withLock { stores in
            defer { stores[tenant] = (engine, task) }
            return stores[tenant]?.task
        }
        previous?.cancel()
    }

    /// Stops counting the events of the tenant's store, and with `removingMetrics` (a deleted tenant's) removes its
    /// metrics: `/metrics` no longer lists the tenant, and the registry holds nothing of it. Without, its counts stay
    /// (a tenant closed while idle, which counts on when it opens again).
    public func stopFollowing(tenant: String, removingMetrics: Bool = true) {
        let task = followed.withLock { $0.removeValue(forKey: tenant)?.task }
        task?.cancel()
        guard removingMetrics else { return }
        let tenantCounters = counters.withLock { $0.removeValue(forKey: tenant) } ?? [:]
        for counter in tenantCounters.values { counter.destroy() }
        let tenantTimers = timers.withLock { $0.removeValue(forKey: tenant) } ?? [:]
        for timer in tenantTimers.values { timer.destroy() }
        outboxDepthGauge(tenant: tenant).destroy()
    }

    /// Stops counting the events of every store followed.
    public func stopFollowing() {
        let tasks = followed.withLock { stores in
            defer { stores.removeAll() }
            return stores.values.map(\.task)
        }
        for task in tasks { task.cancel() }
    }

    func count(_ event: StoreEvent, tenant: String) {
        switch event {
        case .transactionUpdated(let record):
            switch record.origin {
            case .renewal:
                // A renewal that completes: at the end of a period, or when a billing issue is resolved.
                guard record.state == .purchased else { return }
                counter("openstorekit_renewals_total", [("tenant", tenant)]).increment()
            case .purchase, .repurchase:
                counter("openstorekit_purchases_total", [("tenant", tenant), ("result", Self.result(of: record.state))]).increment()
            case .restore, .familyShare:
                return
            }
        case .transactionsRevoked(let records):
            let refunded = records.filter { [.purchase, .repurchase, .renewal].contains($0.origin) }.count
            guard refunded > 0 else { return }
            counter("openstorekit_refunds_total", [("tenant", tenant)]).increment(by: refunded)
        default:
            return
        }
    }

    private static func result(of state: TransactionState) -> String {
        switch state {
        case .purchased: "purchased"
        case .pendingApproval: "pending_approval"
        case .declined: "declined"
        case .interrupted: "interrupted"
        case .failed: "failed"
        }
    }

    // MARK: Notifications

    /// Counts an attempt to send a notification, and a failure unless its result is `SUCCESS`.
    func recordNotificationAttempt(result: String, tenant: String) {
        let dimensions = [("tenant", tenant), ("result", result)]
        counter("openstorekit_notification_attempts_total", dimensions).increment()
        if result != "SUCCESS" {
            counter("openstorekit_notification_failures_total", dimensions).increment()
        }
    }

    /// Reads how many notifications wait in each followed store's outbox into `openstorekit_notification_outbox_depth`.
    /// A store that cannot be read keeps its last value.
    public func refreshOutboxDepth() async {
        let stores = followed.withLock { stores in stores.map { (tenant: $0.key, engine: $0.value.engine) } }
        for store in stores {
            guard let depth = try? await store.engine.pendingNotificationCount(limit: Self.outboxDepthLimit) else { continue }
            outboxDepthGauge(tenant: store.tenant).record(depth)
        }
    }

    /// The tenant's `openstorekit_notification_outbox_depth`: the registry hands back the one it holds, if any.
    private func outboxDepthGauge(tenant: String) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: "openstorekit_notification_outbox_depth", dimensions: [("tenant", tenant)], factory: factory)
    }

    // MARK: Requests

    /// Counts a request the server answered, and records how long it took.
    func recordRequest(group: String, method: String, status: Int, duration: Duration) {
        counter("openstorekit_http_requests_total", [("group", group), ("method", method), ("status", String(status))]).increment()
        timer("openstorekit_http_request_duration_seconds", [("group", group), ("method", method)])
            .recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
}
