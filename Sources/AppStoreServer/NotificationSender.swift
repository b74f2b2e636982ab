public import AppStoreEngine
public import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
public import Logging
import Synchronization

/// Sends a store's App Store Server Notifications V2 to app servers, as the App Store does.
///
/// Each notification in the engine's outbox is signed when it is sent — `{"signedPayload": "<JWS>"}`, POSTed as JSON
/// — and an answer other than HTTP 200–206 is retried 1, 12, 24, 48 and 72 hours after the previous attempt, on the
/// store's clock, so moving a virtual clock delivers retries too. Notifications of one original transaction arrive in
/// the order they happened: while one waits for a retry, the later ones wait behind it. Every attempt is saved in the
/// outbox before the next begins, so a restart loses nothing and resends nothing that was delivered. A notification
/// that falls due while its app has no URL is kept as not sent.
///
/// Senders of several servers sharing one database share the outbox: each claims a batch of due notifications
/// before attempting them (see `StoreEngine.claimDueNotifications(limit:for:until:at:)`), so every attempt is made
/// by one sender. The claims of a sender that dies lapse after ``claimDuration``, and another sender takes over.
///
/// Where notifications go is the tenant's row of storage (``setDestinations(_:)``, `StoreEngine.setNotificationDestinations(_:)`),
/// read at the start of each pass, so a URL set through any server on the storage holds in every sender from its next
/// pass; a tenant with none stored uses the destinations the sender was created with (`storekit serve
/// --notification-url`). With no destination at all a pass sends nothing and leaves the outbox as it is, and a started
/// sender reads them again only when its engine knows they changed or ``pickupInterval`` seconds later: a URL another
/// process stores in a SQLite data directory, which signals nothing, is in force within that interval.
///
/// The sender wakes when the engine records notifications (or another server on the storage changed the tenant), when
/// the next retry falls due, every
/// ``pickupInterval`` seconds to pick up what other processes sharing the store recorded, and, on a `VirtualClock`,
/// at each due attempt as the clock advances (then only ``deliverDue()`` and the clock drive it).
public actor NotificationSender: ScheduledEventSource {
    /// The store whose outbox is sent.
    public nonisolated let engine: StoreEngine
    /// Where notifications go while the tenant has no destinations stored.
    private let defaultDestinations: NotificationDestinations
    private let timeout: TimeInterval
    private let session: URLSession
    private let logger: Logger
    private let metrics: StoreMetrics?
    /// This sender, as its claims on the outbox name it.
    public nonisolated let id = UUID()
    /// The wall clock the claims' lapse is measured on.
    private let claimClock: any StoreClock
    /// How many notifications a claim takes at most.
    private static let batchSize = 20
    private var currentPass: Task<Void, Never>?
    private var listener: Task<Void, Never>?
    /// The engine's name for the listener's subscription to its outbox signals, once subscribed.
    private var subscriptionID: UUID?
    private var wake: (date: Date, task: Task<Void, Never>)?
    /// Whether the last pass found somewhere to send to: a sender without destinations does not wake to look for
    /// work, and waits for the engine's signal (a notification recorded, a change by another server).
    private var hasDestinations = false
    /// When a started sender last read that there is no destination, on ``claimClock``, and the engine's count of
    /// destination changes then. Until ``pickupInterval`` passed or the count moved, a pass does not read them again:
    /// every purchase records a notification and starts a pass, and each read cost a storage read, a sixth of a
    /// purchase on SQLite. A URL another process stores is seen within ``pickupInterval``, as its notifications are.
    private var noDestinationsRead: (date: Date, changes: Int)?
    /// Whether a pass skipped reading the destinations since ``noDestinationsRead``: a wake then reads them again.
    private var destinationsReadSkipped = false

    /// The HTTP clients of the process's senders, one per timeout: a session holds descriptors of its own (two on
    /// Linux), so one per tenant would cost a server of thousands of tenants thousands of them. The timeout belongs to
    /// the session: FoundationNetworking reports a request's own timeout as another failure than `TIMED_OUT`.
    ///
    /// URLSession rather than async-http-client: it ships with the toolchain, so the server does not build a TLS stack
    /// of its own, and it follows http and https URLs alike.
    private static let sessions = Mutex<[TimeInterval: URLSession]>([:])

    /// The process's session for requests that time out after `timeout` seconds.
    private static func session(timingOutAfter timeout: TimeInterval) -> URLSession {
        sessions.withLock { sessions in
            if let session = sessions[timeout] { return session }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            let session = URLSession(configuration: configuration)
            sessions[timeout] = session
            return session
        }
    }

    /// Creates a sender for `engine`'s outbox.
    ///
    /// - Parameters:
    ///   - engine: The store whose notifications are sent.
    ///   - destinations: Where each app's notifications go while the tenant has none stored (``setDestinations(_:)``).
    ///   - timeout: How long to wait for an app server's answer before the attempt counts as `TIMED_OUT`.
    ///   - claimClock: The wall clock on which claims on the outbox lapse; the system's unless a test drives it.
    ///   - metrics: Where each attempt is counted, by result; `nil` counts nothing.
    ///   - logger: Where each attempt is logged.
    public init(
        engine: StoreEngine, destinations: NotificationDestinations, timeout: TimeInterval = 10,
        claimClock: any StoreClock = SystemClock(), metrics: StoreMetrics? = nil, logger: Logger = Logger(label: "storekit.notifications")
    ) {
        self.engine = engine
        self.metrics = metrics
        self.claimClock = claimClock
        self.defaultDestinations = destinations
        self.timeout = timeout
        self.session = Self.session(timingOutAfter: timeout)
        self.logger = logger
        (engine.clock as? VirtualClock)?.register(self)
    }

    /// Starts sending: at once, then whenever the engine records notifications and when a retry falls due.
    public func start() {
        guard listener == nil else { return }
        let engine = engine
        listener = Task { [weak self] in
            let subscription = await engine.outboxUpdates()
            await self?.subscribed(subscription.id)
            await self?.deliverDue()
            for await _ in subscription.signals {
                await self?.deliverDue()
            }
        }
    }

    private func subscribed(_ id: UUID) {
        subscriptionID = id
    }

    /// Stops listening and waking; an attempt under way finishes and is saved first.
    public func stop() async {
        listener?.cancel()
        listener = nil
        subscriptionID = nil
        wake?.task.cancel()
        wake = nil
        await currentPass?.value
    }

    /// Whether the sender has nothing to do until the store records a notification: no destination to send to, or no
    /// notification waiting to be sent or retried. `false` when the storage cannot tell.
    public func hasNothingToSend() async -> Bool {
        guard let destinations = try? await destinations() else { return false }
        guard destinations != NotificationDestinations() else { return true }
        return (try? await engine.pendingNotificationCount(limit: 1)) == 0
    }

    /// Where notifications go now: the tenant's stored destinations, else the ones the sender was created with.
    public func destinations() async throws(StoreError) -> NotificationDestinations {
        try await engine.notificationDestinations() ?? defaultDestinations
    }

    /// Stores where the tenant's notifications go, for this sender and those of every server on the storage, and
    /// across restarts; pending notifications follow the new destinations.
    ///
    /// - Throws: `StoreError.storageFailure` when they cannot be stored; nothing changes then.
    public func setDestinations(_ destinations: NotificationDestinations) async throws(StoreError) {
        try await engine.setNotificationDestinations(destinations)
    }

    /// Attempts every notification due on the store's clock, in order, and saves each outcome; returns once done.
    /// Passes never overlap: a call while one runs waits for it, then makes its own.
    public func deliverDue() async {
        // A finished pass counts as none. Awaiting a finished task does not suspend, so a waiter that resumed before
        // the pass's own caller must clear it here, or it would spin on it while holding the actor.
        while let current = currentPass {
            await current.value
            if currentPass == current { currentPass = nil }
        }
        let pass = Task { await self.runPass() }
        currentPass = pass
        await pass.value
        if currentPass == pass { currentPass = nil }
        await scheduleWake()
    }

    // MARK: Test notifications

    /// A `TEST` notification the App Store Server API asked for, and how sending it went.
    public struct TestNotification: Sendable {
        /// The token the API handed out, `<notificationUUID>_<milliseconds>`.
        public var token: String
        /// The signed payload that was sent.
        public var signedPayload: String
        /// The attempt to send it.
        public var attempts: [NotificationDelivery.Attempt]
    }

    private var testNotifications: [String: TestNotification] = [:]

    /// Signs a `TEST` notification for an app and sends it once, as Apple's sandbox does; `nil` when the app has no
    /// notification URL. Test notifications live as long as the sender, like the token Apple hands out.
    public func sendTestNotification(bundleID: String) async -> TestNotification? {
        guard let url = try? await destinations().url(for: bundleID) else { return nil }
        let id = UUID()
        let now = engine.clock.now()
        guard let payload = try? await engine.signedTestNotification(bundleID: bundleID, id: id) else { return nil }
        let attempt = await post(payload, to: url, at: now)
        logger.info("test notification \(id) to \(url.absoluteString): \(attempt.result)")
        let token = "\(id.uuidString.lowercased())_\(Int64((now.timeIntervalSince1970 * 1000).rounded()))"
        let test = TestNotification(token: token, signedPayload: payload, attempts: [attempt])
        testNotifications[token] = test
        return test
    }

    /// A test notification sent earlier, by its token.
    public func testNotification(token: String) -> TestNotification? {
        testNotifications[token]
    }

    // MARK: ScheduledEventSource

    /// The next due attempt, for a `VirtualClock`.
    public func nextEventDate() async -> Date? {
        try? await engine.nextNotificationAttemptDate(for: id, at: claimClock.now())
    }

    /// Sends what is due, as a `VirtualClock` reaches `date`.
    public func fireEvents(dueAt date: Date) async {
        await deliverDue()
    }

    // MARK: Sending

    /// How long a claim holds: two attempts' timeouts and ten seconds. A sender makes an attempt only while its claim
    /// has a whole timeout left, and hands back the rest of its batch otherwise, so a short claim never lets two
    /// senders attempt one notification, and a dead sender's notifications wait little for another.
    public var claimDuration: TimeInterval { timeout * 2 + 10 }

    private func runPass() async {
        let changes = await engine.knownDestinationChanges
        if let read = noDestinationsRead, read.changes == changes, claimClock.now() < read.date.addingTimeInterval(Self.pickupInterval) {
            destinationsReadSkipped = true
            return
        }
        let readDate = claimClock.now()
        var destinations: NotificationDestinations
        do {
            destinations = try await self.destinations()
        } catch {
            logger.warning("the notification URLs could not be read: \(error.message)")
            return
        }
        // Nowhere to send anything: the outbox stays as it is until a URL is set.
        hasDestinations = destinations != NotificationDestinations()
        destinationsReadSkipped = false
        // Only a sender that wakes by itself may skip reads: it reads again when the interval ends (`scheduleWake()`).
        noDestinationsRead = hasDestinations || !wakesItself ? nil : (readDate, changes)
        // Until then, one signal of recorded notifications is enough: it sets the wake.
        if noDestinationsRead != nil, let subscriptionID { await engine.quietOutboxSignals(for: subscriptionID) }
        guard hasDestinations else { return }
        while true {
            let claimStart = claimClock.now()
            let claimed: [NotificationRecord]
            do {
                claimed = try await engine.claimDueNotifications(
                    limit: Self.batchSize, for: id, until: claimStart.addingTimeInterval(claimDuration), at: claimStart
                )
            } catch {
                logger.warning("notifications could not be claimed: \(error.message)")
                return
            }
            guard !claimed.isEmpty else { return }
            // Asked again for each batch, after the claim: its transaction notes a change another server made since,
            // and a pass that runs on must not send to where notifications went at its start (kept in memory, the
            // answer costs nothing when nothing changed).
            if let latest = try? await self.destinations() { destinations = latest }
            let now = engine.clock.now()
            // Original transactions whose notification of this batch waits for a retry: their later ones wait behind it.
            var retries: [UInt64: Date] = [:]
            var saved = 0
            for var notification in claimed {
                let original = notification.originalTransactionID
                let expires = notification.delivery.claim?.expires ?? claimStart
                if claimClock.now().addingTimeInterval(timeout) >= expires {
                    // Too little of the claim is left for an attempt: hand it back unattempted, for the next claim.
                } else if let retry = retries[original] {
                    notification.delivery.nextAttemptDate = retry
                } else if let url = destinations.url(for: notification.bundleID) {
                    let attempt = await send(notification, to: url, at: now)
                    notification.delivery.record(attempt)
                    if notification.delivery.state == .pending { retries[original] = notification.delivery.nextAttemptDate }
                    logger.info("notification \(notification.summary) \(notification.id) to \(url.absoluteString): \(attempt.result)")
                } else {
                    notification.delivery.state = .notSent
                    notification.delivery.nextAttemptDate = nil
                }
                do {
                    if try await engine.saveDelivery(of: notification, by: id) {
                        saved += 1
                    } else {
                        logger.warning("notification \(notification.id): its claim lapsed before the outcome was saved; another sender holds it now")
                    }
                } catch {
                    logger.warning("notification \(notification.id): \(error.message)")
                }
            }
            // Nothing could be saved (the storage fails): stop rather than send the same batch again; the next wake retries.
            guard saved > 0 else { return }
        }
    }

    /// Signs and POSTs one notification of the outbox.
    private func send(_ notification: NotificationRecord, to url: URL, at date: Date) async -> NotificationDelivery.Attempt {
        do {
            return await post(try await engine.signedNotification(notification), to: url, at: date)
        } catch {
            logger.error("notification \(notification.id) could not be signed: \(error.message)")
            metrics?.recordNotificationAttempt(result: "OTHER", tenant: engine.tenantID)
            return NotificationDelivery.Attempt(date: date, result: "OTHER")
        }
    }

    /// POSTs a signed payload at `date`: the outcome as Apple's `sendAttemptResult` names it, and what the app's
    /// server answered.
    private func post(_ payload: String, to url: URL, at date: Date) async -> NotificationDelivery.Attempt {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONSerialization.data(withJSONObject: ["signedPayload": payload])
        let outcome = await perform(request, at: date)
        metrics?.recordNotificationAttempt(result: outcome.result, tenant: engine.tenantID)
        return outcome
    }

    /// Makes one request: the outcome as Apple's `sendAttemptResult` names it, and what the app's server answered.
    private func perform(_ request: URLRequest, at date: Date) async -> NotificationDelivery.Attempt {
        func failure(_ result: String) -> NotificationDelivery.Attempt { NotificationDelivery.Attempt(date: date, result: result) }
        do {
            let (body, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            let excerpt = String(decoding: body.prefix(1_024), as: UTF8.self).prefix(256)
            return NotificationDelivery.Attempt(
                date: date, result: (200...206).contains(status) ? "SUCCESS" : "UNSUCCESSFUL_HTTP_RESPONSE_CODE",
                httpStatusCode: status, responseExcerpt: excerpt.isEmpty ? nil : String(excerpt)
            )
        } catch let error as URLError {
            switch error.code {
            case .timedOut: return failure("TIMED_OUT")
            case .cannotConnectToHost, .cannotFindHost, .networkConnectionLost, .notConnectedToInternet: return failure("NO_RESPONSE")
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate: return failure("TLS_ISSUE")
            case .badServerResponse: return failure("INVALID_RESPONSE")
            default: return failure("OTHER")
            }
        } catch {
            return failure("OTHER")
        }
    }

    private func wakeFired() async {
        wake = nil
        await deliverDue()
    }

    /// How soon a started sender looks again for notifications other processes sharing the store recorded, which
    /// its engine announces no event for.
    public static let pickupInterval: TimeInterval = 2

    /// Whether the sender wakes by itself: started, on a clock that runs by itself.
    private var wakesItself: Bool { listener != nil && !(engine.clock is VirtualClock) }

    /// On a clock that runs by itself, wakes at the next due retry, or sooner to pick up other processes' notifications;
    /// without destinations, only to read them again after a pass skipped reading them.
    private func scheduleWake() async {
        guard wakesItself else { return }
        let next: Date?
        if hasDestinations {
            let pickup = engine.clock.now().addingTimeInterval(Self.pickupInterval)
            let due = (try? await engine.nextNotificationAttemptDate(for: id, at: claimClock.now())) ?? nil
            next = min(due ?? pickup, pickup)
        } else if destinationsReadSkipped, let read = noDestinationsRead {
            // A wake already set comes soon enough: each purchase skips a read, and would set it again.
            guard wake == nil else { return }
            // On the engine's clock, as wakes are: what is left of the interval on the claim clock, from now.
            next = engine.clock.now().addingTimeInterval(max(0, read.date.addingTimeInterval(Self.pickupInterval).timeIntervalSince(claimClock.now())))
        } else {
            next = nil
        }
        guard next != wake?.date else { return }
        wake?.task.cancel()
        guard let next else {
            wake = nil
            return
        }
        let clock = engine.clock
        wake = (next, Task { [weak self] in
            let delay = next.timeIntervalSince(clock.now())
            if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
            guard !Task.isCancelled else { return }
            await self?.wakeFired()
        })
    }
}
