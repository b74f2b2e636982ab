import AppStoreEngine
import Foundation

/// A message the App Store wants to show the customer inside the app: a price increase to consent to, a billing
/// issue to fix, a win-back offer for a subscription that lapsed.
public struct Message: Equatable, Hashable, Sendable {
    /// What the message is about.
    public let reason: Message.Reason
    let productID: String

    /// Shows the message. With no screen, the store records it as displayed (`SKTestSession.messagesDisplayed`); the
    /// customer answers a price increase with the session's consent controls.
    @MainActor
    public func display(in scene: UIWindowScene) throws {
        let device = try StoreKitDevice.current()
        device.sheets.withLock { $0.messagesDisplayed.append(reason) }
    }

    /// Messages for the customer: one when a subscription asks for price-increase consent, one when a subscription
    /// enters billing retry, and one when a subscription lapsed and its renewal info lists win-back offers
    /// (`eligibleWinBackOfferIDs`). Each reaches the app once per device. The sequence never ends on its own.
    public static var messages: Message.Messages {
        let device = Result { () throws(StoreKitError) in try StoreKitDevice.current() }
        return Messages { continuation in
            guard let device = try? device.get() else { return }
            await device.followChanges { await device.deliverMessages(to: continuation) }
        }
    }

    /// What a message is about.
    public struct Reason: Hashable, Sendable {
        let name: String

        /// A message of another kind.
        public static let generic = Reason(name: "generic")
        /// A subscription's price rises and needs the customer's consent.
        public static let priceIncreaseConsent = Reason(name: "priceIncreaseConsent")
        /// Billing a subscription renewal failed.
        public static let billingIssue = Reason(name: "billingIssue")
        /// A win-back offer for a lapsed subscription.
        public static let winBackOffer = Reason(name: "winBackOffer")

        /// The reason in words.
        public var localizedDescription: String {
            switch self {
            case .priceIncreaseConsent: "Price increase consent"
            case .billingIssue: "Billing issue"
            case .winBackOffer: "Win-back offer"
            default: "Generic"
            }
        }
    }

    /// An asynchronous sequence of messages.
    public struct Messages: AsyncSequence, Sendable {
        /// A message.
        public typealias Element = Message

        private let produce: @Sendable (AsyncStream<Element>.Continuation) async -> Void

        init(_ produce: @escaping @Sendable (AsyncStream<Element>.Continuation) async -> Void) {
            self.produce = produce
        }

        /// Iterates the sequence.
        public typealias AsyncIterator = AsyncStream<Element>.Iterator

        /// Starts iterating.
        public func makeAsyncIterator() -> AsyncIterator {
            producedStream(produce).makeAsyncIterator()
        }
    }
}

extension StoreKitDevice {
    /// Yields a message for each subscription that now waits for price-increase consent, entered billing retry, or
    /// lapsed with win-back offers to redeem, once per subscription, period and cause on this device.
    func deliverMessages(to continuation: AsyncStream<Message>.Continuation) async {
        guard let subscriptions = try? await subscriptionRecords() else { return }
        let winBack = await lapsedWithWinBackOffers(subscriptions)
        let store = DeviceStateStore.forAppDirectory(environment.appDirectory)
        let messages = store.update { state in
            var messages: [Message] = []
            for subscription in subscriptions {
                let pending: [(Message.Reason, Bool)] = [
                    (.priceIncreaseConsent, subscription.priceIncrease == .pending),
                    (.billingIssue, subscription.isInBillingRetry),
                    (.winBackOffer, winBack.contains(subscription.id)),
                ]
                for (reason, due) in pending {
                    let key = "\(reason.name):\(subscription.id):\(subscription.expiresDate.timeIntervalSinceReferenceDate)"
                    guard due, state.deliveredMessages.insert(key).inserted else { continue }
                    messages.append(Message(reason: reason, productID: subscription.productID))
                }
            }
            return messages
        }
        for message in messages { continuation.yield(message) }
    }

    /// The lapsed subscriptions whose signed renewal info offers the customer win-back offers.
    private func lapsedWithWinBackOffers(_ subscriptions: [SubscriptionRecord]) async -> Set<UInt64> {
        let lapsed = subscriptions.filter { $0.status == .expired }.map(\.id)
        guard !lapsed.isEmpty else { return [] }
        let deviceID = environment.deviceID
        let tokens = try? await call { connection throws(StoreError) in
            try await connection.signedRenewalInfo(subscriptionIDs: lapsed, deviceID: deviceID)
        }
        var offered: Set<UInt64> = []
        for token in tokens ?? [] {
            if case .verified(let info)? = await verifyRenewalInfo(token), !info.eligibleWinBackOfferIDs.isEmpty {
                offered.insert(info.originalTransactionID)
            }
        }
        return offered
    }
}
