import AppStoreEngine
import AppStoreFormats
import Foundation

extension Product {
    /// The subscription details of an auto-renewable subscription.
    public struct SubscriptionInfo: Equatable, Hashable, Sendable {
        /// The subscription group the product belongs to.
        public let subscriptionGroupID: String
        /// The group's level: 1 is the highest service.
        public let groupLevel: Int
        /// How long one period lasts.
        public let subscriptionPeriod: Product.SubscriptionPeriod
        /// The introductory offer, if the product has one.
        public let introductoryOffer: Product.SubscriptionOffer?
        /// The promotional offers.
        public let promotionalOffers: [Product.SubscriptionOffer]
        /// The win-back offers.
        public let winBackOffers: [Product.SubscriptionOffer]
        /// The group's name as the customer sees it.
        public let groupDisplayName: String
        /// The ways the customer may pay for the subscription, one per billing plan: up front, and monthly with a
        /// 12-month commitment for a product that offers it. Empty for a product configured without billing plans.
        public let pricingTerms: [Product.SubscriptionInfo.PricingTerms]

        init(_ terms: SubscriptionTerms, productID: String, currency: String, locale: Locale, language: String) {
            subscriptionGroupID = terms.groupID
            groupDisplayName = LocalizedText.best(of: terms.groupNames, for: language)?.displayName ?? terms.groupID
            groupLevel = terms.level
            subscriptionPeriod = SubscriptionPeriod(terms.period)
            introductoryOffer = terms.introductoryOffer.map { SubscriptionOffer($0, type: .introductory, currency: currency, locale: locale) }
            promotionalOffers = terms.promotionalOffers.map { SubscriptionOffer($0, type: .promotional, currency: currency, locale: locale) }
            winBackOffers = terms.winBackOffers.map { SubscriptionOffer($0, type: .winBack, currency: currency, locale: locale) }
            let offers = (introductoryOffer.map { [$0] } ?? []) + promotionalOffers + winBackOffers
            pricingTerms = terms.billingPlans.map { PricingTerms($0, period: terms.period, offers: offers, currency: currency, locale: locale) }
        }

        /// Whether the customer may still get the introductory offer of this subscription's group.
        public var isEligibleForIntroOffer: Bool {
            get async { await Self.isEligibleForIntroOffer(for: subscriptionGroupID) }
        }

        /// Whether the customer may still get an introductory offer in a group: not subscribed now, and no
        /// introductory offer redeemed in the group before.
        public static func isEligibleForIntroOffer(for groupID: String) async -> Bool {
            guard let device = try? StoreKitDevice.current(),
                  let records = try? await device.transactionRecords(),
                  let subscriptions = try? await device.subscriptionRecords() else { return false }
            if subscriptions.contains(where: { $0.groupID == groupID && ($0.status == .active || $0.status == .gracePeriod) }) { return false }
            return !records.contains { $0.subscriptionGroupID == groupID && $0.offer?.type == .introductoryOffer }
        }

        /// The statuses of this subscription's group: the customer's own subscription and any a family member shares.
        ///
        /// - Throws: ``StoreKitError`` when the store cannot answer.
        public var status: [Product.SubscriptionInfo.Status] {
            get async throws { try await Self.status(for: subscriptionGroupID) }
        }

        /// The statuses of a subscription group: the customer's own subscription and any a family member shares.
        ///
        /// - Throws: ``StoreKitError`` when the store cannot answer.
        public static func status(for groupID: String) async throws -> [Product.SubscriptionInfo.Status] {
            let device = try StoreKitDevice.current()
            try device.throwSimulatedFailure(for: .subscriptionStatus)
            return try await device.subscriptionStatuses { $0.groupID == groupID }
        }

        /// The status of the subscription a transaction belongs to.
        ///
        /// - Throws: ``StoreKitError`` when the store cannot answer.
        public static func status(transactionID: UInt64) async throws -> Product.SubscriptionInfo.Status? {
            let device = try StoreKitDevice.current()
            try device.throwSimulatedFailure(for: .subscriptionStatus)
            let records = try await device.transactionRecords()
            guard let record = records.first(where: { $0.id == transactionID }) else { return nil }
            return try await device.subscriptionStatuses(originalID: record.originalID).first
        }
    }
}

extension Product.SubscriptionInfo {
    /// Where a subscription stands. Raw values are the App Store Server API's `status`.
    public struct RenewalState: RawRepresentable, Hashable, Sendable {
        /// The customer is subscribed.
        public static let subscribed = RenewalState(rawValue: 1)
        /// The subscription expired.
        public static let expired = RenewalState(rawValue: 2)
        /// Billing failed; the App Store keeps trying, and the customer has no service.
        public static let inBillingRetryPeriod = RenewalState(rawValue: 3)
        /// Billing failed; the App Store keeps trying, and the customer keeps the service for now.
        public static let inGracePeriod = RenewalState(rawValue: 4)
        /// The App Store refunded or revoked the subscription.
        public static let revoked = RenewalState(rawValue: 5)

        /// The App Store's number.
        public let rawValue: Int
        /// A state by its App Store number.
        public init(rawValue: Int) { self.rawValue = rawValue }

        init(_ status: AppStoreEngine.SubscriptionStatus) {
            switch status {
            case .active: self = .subscribed
            case .gracePeriod: self = .inGracePeriod
            case .billingRetry: self = .inBillingRetryPeriod
            case .expired: self = .expired
            case .revoked: self = .revoked
            }
        }

        /// The state in words.
        public var localizedDescription: String {
            switch rawValue {
            case 1: "Subscribed"
            case 2: "Expired"
            case 3: "In billing retry period"
            case 4: "In grace period"
            case 5: "Revoked"
            default: "Unknown"
            }
        }
    }

    /// A subscription's state, with its latest transaction and its renewal info.
    public struct Status: Equatable, Hashable, Sendable {
        /// Where the subscription stands.
        public let state: Product.SubscriptionInfo.RenewalState
        /// The subscription's latest transaction.
        public let transaction: VerificationResult<Transaction>
        /// What happens at the end of the period.
        public let renewalInfo: VerificationResult<Product.SubscriptionInfo.RenewalInfo>

        /// Status changes of the customer's subscriptions in the app: renewals, expirations, billing issues,
        /// refunds, auto-renew turned off or on. The sequence never ends on its own.
        public static var updates: Product.SubscriptionInfo.Status.Statuses {
            let device = Result { () throws(StoreKitError) in try StoreKitDevice.current() }
            return Statuses { continuation in
                guard let device = try? device.get() else { return }
                await device.streamStatusUpdates(to: continuation)
            }
        }

        /// The statuses of every subscription group of the app, one element per group.
        public static var all: AsyncStream<(groupID: String, statuses: [Product.SubscriptionInfo.Status])> {
            let device = Result { () throws(StoreKitError) in try StoreKitDevice.current() }
            return producedStream { continuation in
                guard let device = try? device.get(), let statuses = try? await device.subscriptionStatuses({ _ in true }) else { return }
                var groups: [String] = []
                var byGroup: [String: [Product.SubscriptionInfo.Status]] = [:]
                for status in statuses {
                    let group = status.transaction.unsafePayloadValue.subscriptionGroupID ?? ""
                    if byGroup[group] == nil { groups.append(group) }
                    byGroup[group, default: []].append(status)
                }
                for group in groups { continuation.yield((groupID: group, statuses: byGroup[group] ?? [])) }
            }
        }

        /// An asynchronous sequence of subscription statuses.
        public struct Statuses: AsyncSequence, Sendable {
            /// A status.
            public typealias Element = Product.SubscriptionInfo.Status

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
}

extension StoreKitDevice {
    /// The account's auto-renewable subscriptions in the app.
    func subscriptionRecords() async throws(StoreKitError) -> [SubscriptionRecord] {
        let (accountID, bundleID) = (environment.accountID, environment.bundleID)
        return try await call { connection throws(StoreError) in try await connection.subscriptions(accountID: accountID, bundleID: bundleID) }
    }

    /// The statuses of the subscriptions `include` picks, signed for this device and verified.
    func subscriptionStatuses(_ include: (SubscriptionRecord) -> Bool) async throws(StoreKitError) -> [Product.SubscriptionInfo.Status] {
        try await statuses(of: try await subscriptionRecords().filter(include))
    }

    /// The status of the subscription whose original transaction is `originalID`, if the account has it.
    func subscriptionStatuses(originalID: UInt64) async throws(StoreKitError) -> [Product.SubscriptionInfo.Status] {
        try await subscriptionStatuses { $0.id == originalID }
    }

    private func statuses(of subscriptions: [SubscriptionRecord]) async throws(StoreKitError) -> [Product.SubscriptionInfo.Status] {
        guard !subscriptions.isEmpty else { return [] }
        let records = try await transactionRecords()
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        let shown = subscriptions.filter { byID[$0.latestTransactionID] != nil }
        let transactions = try await verifiedTransactions(shown.compactMap { byID[$0.latestTransactionID] })
        let ids = shown.map(\.id)
        let deviceID = environment.deviceID
        let tokens = try await call { connection throws(StoreError) in try await connection.signedRenewalInfo(subscriptionIDs: ids, deviceID: deviceID) }
        var statuses: [Product.SubscriptionInfo.Status] = []
        for (index, subscription) in shown.enumerated() where index < transactions.count && index < tokens.count {
            guard let renewalInfo = await verifyRenewalInfo(tokens[index]) else { continue }
            statuses.append(Product.SubscriptionInfo.Status(
                state: .init(subscription.status), transaction: transactions[index], renewalInfo: renewalInfo
            ))
        }
        return statuses
    }

    /// Yields a status each time one of the account's subscriptions changes, until the iterating task is cancelled.
    func streamStatusUpdates(to continuation: AsyncStream<Product.SubscriptionInfo.Status>.Continuation) async {
        let changes = await environment.connection.changes()
        var known: [UInt64: SubscriptionRecord] = [:]
        for subscription in (try? await subscriptionRecords()) ?? [] { known[subscription.id] = subscription }
        await listening {
            for await _ in changes {
                guard let subscriptions = try? await subscriptionRecords() else { continue }
                var changed: [SubscriptionRecord] = []
                for subscription in subscriptions where known.updateValue(subscription, forKey: subscription.id) != subscription {
                    changed.append(subscription)
                }
                guard let statuses = try? await statuses(of: changed) else { continue }
                for status in statuses { continuation.yield(status) }
            }
        }
    }
}
