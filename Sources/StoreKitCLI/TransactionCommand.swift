import AppStoreEngine
import AppStoreFormats
import AppStoreHosting
import AppStoreServer
import ArgumentParser
import Foundation

/// `storekit tx …`: the transaction manager, on the data directory's store or a running server's.
struct TransactionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tx",
        abstract: "See and change the store's transactions: list, show, refund, approve, renew, expire, delete …",
        discussion: """
        What Xcode's transaction manager and the web transaction manager do, from the terminal. Every subcommand \
        acts on the store in the data directory (--data-dir, --tenant), or with --server URL on a running \
        `storekit serve` through its control API, so apps connected to it see the change at once. Actions on \
        subscriptions (renew, expire, auto-renew, price-consent) take any transaction of the subscription.

        Without a subcommand, `storekit tx` lists the transactions.

        Example:
          storekit tx list --account alice
          storekit tx show 2000000000000001 --json
          storekit tx refund 2000000000000001 --reason app-issue
          storekit tx request-refund 2000000000000001 --reason UNINTENDED_PURCHASE
          storekit tx decide-refund 2000000000000001 --prorated 50000
          storekit tx approve 2000000000000002 --server http://127.0.0.1:8080
          storekit tx renew 2000000000000003 --config Examples/Demo.storekit
        """,
        subcommands: [
            TransactionListCommand.self,
            TransactionShowCommand.self,
            RefundCommand.self,
            RequestRefundCommand.self,
            DecideRefundCommand.self,
            ReverseRefundCommand.self,
            ApproveCommand.self,
            DeclineCommand.self,
            ResolveCommand.self,
            ExpireCommand.self,
            RenewCommand.self,
            AutoRenewCommand.self,
            PriceConsentCommand.self,
            DeleteCommand.self,
            ClearCommand.self,
        ],
        defaultSubcommand: TransactionListCommand.self
    )
}

/// `storekit tx list`: lists what the store recorded.
struct TransactionListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the store's transactions, oldest first; filter by account, app, product or state.",
        discussion: """
        One line per transaction: identifier, product, state, date, amount, account; renewals, restores and offers \
        say so, refunds show their date. --json prints the control API's transaction objects, each with its \
        signedTransaction when it was signed.

        --state purchased lists completed purchases (refunded ones too); refunded lists only refunded or revoked \
        ones; pending-approval, declined, interrupted and failed list the purchases that did not complete.

        Example:
          storekit tx list
          storekit tx list --account alice --json
          storekit tx list --product com.example.demo.plus.monthly --state refunded
          storekit tx list --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    /// Which transactions `--state` keeps.
    enum StateFilter: String, ExpressibleByArgument, CaseIterable {
        case purchased, refunded, pendingApproval = "pending-approval", declined, interrupted, failed

        /// Whether a transaction is in this state.
        func matches(_ transaction: TransactionSummary) -> Bool {
            switch self {
            case .refunded: transaction.revocationDate != nil
            case .failed: transaction.state.hasPrefix("failed")
            default: transaction.state == rawValue
            }
        }
    }

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp("Only this account's transactions.", valueName: "name"))
    var account: String?

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("Only this app's transactions.", valueName: "id"))
    var bundleID: String?

    @Option(help: ArgumentHelp("Only this product's transactions.", valueName: "id"))
    var product: String?

    @Option(help: ArgumentHelp("Only transactions in this state: \(StateFilter.allValueStrings.joined(separator: ", ")).", valueName: "state"))
    var state: StateFilter?

    @Flag(help: "Print a JSON array.")
    var json = false

    func run() async throws {
        let store = try remote.control(location: location) { nil }
        let outputs = try await store.transactions(TransactionQuery(accountID: account, bundleID: bundleID, productID: product))
            .filter { (product == nil || $0.productId == product) && (state?.matches($0) ?? true) }
        if json {
            try printJSON(outputs)
        } else if outputs.isEmpty {
            let filtered = account != nil || bundleID != nil || product != nil || state != nil
            print("No \(filtered ? "matching " : "")transactions in \(try remote.place(location: location)) (store \"\(location.resolvedTenant)\").")
        } else {
            outputs.forEach { print($0.line) }
        }
    }
}

/// `storekit tx show`: one transaction in full, and the subscription it belongs to.
struct TransactionShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one transaction in full and, for a subscription, its renewal state.",
        discussion: """
        --json prints the control API's transaction object, with its signedTransaction (the JWS an app receives; \
        decode it with `storekit jws decode`), and for an auto-renewable subscription a "subscription" object with \
        Apple's renewal-info names (status, autoRenewStatus, expiresDate, expirationIntent, …), as \
        `storekit subscriptions --json` prints it.

        Give --config to apply the renewals and expiries due on the store's clock first (not needed with --server).

        Example:
          storekit tx show 2000000000000001
          storekit tx show 2000000000000001 --json | jq -r .signedTransaction
          storekit tx show 2000000000000001 --server http://127.0.0.1:8080
        """
    )

    @Argument(help: ArgumentHelp("The transaction identifier, as `storekit tx list` prints it.", valueName: "id"))
    var transactionID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(help: ArgumentHelp("The .storekit file, so due renewals are applied before showing.", valueName: "file"))
    var config: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    func run() async throws {
        let store = try remote.control(location: location) { try config.map(loadConfiguration) }
        let transaction = try await store.transaction(try parseTransactionID(transactionID))
        let subscription = try await store.subscription(of: transaction).map(SubscriptionOutput.init)
        let detail = TransactionDetail(transaction: transaction, subscription: subscription)
        if json { try printJSON(detail) } else { detail.lines.forEach { print($0) } }
    }
}

/// A transaction as `storekit tx show` prints it: the control API's object, plus its subscription.
struct TransactionDetail: Encodable {
    /// The transaction, as the control API answers it.
    var transaction: TransactionSummary
    /// The subscription it belongs to, for an auto-renewable subscription.
    var subscription: SubscriptionOutput?

    private enum Key: String, CodingKey { case subscription }

    /// The transaction's members, then `subscription`, in one object.
    func encode(to encoder: any Encoder) throws {
        try transaction.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(subscription, forKey: .subscription)
    }

    /// The lines for people.
    var lines: [String] {
        let t = transaction
        var lines = [
            "transaction \(t.transactionId)",
            "  product:      \(t.productId) (\(t.type))",
            "  app:          \(t.bundleId)",
            "  account:      \(t.account)",
            "  state:        \(t.state)",
            "  origin:       \(t.origin)\(t.originalTransactionId == t.transactionId ? "" : " of \(t.originalTransactionId)")",
            "  purchased:    \(t.purchaseDate)",
        ]
        if let expires = t.expiresDate { lines.append("  expires:      \(expires)") }
        lines.append("  charged:      \(t.amountCharged) \(t.currency)\(t.quantity > 1 ? " for \(t.quantity) × \(t.price)" : "") in storefront \(t.storefront)")
        if let offer = t.offerDiscountType {
            lines.append("  offer:        \(t.offerIdentifier.map { "\($0), " } ?? "")\(offer) (offerType \(t.offerType.map(String.init) ?? "?"))")
        }
        if let revoked = t.revocationDate {
            var how = "revocationReason \(t.revocationReason.map(String.init) ?? "?")"
            if let type = t.revocationType { how += ", \(type)" }
            if let percentage = t.revocationPercentage { how += " \(percentage)" }
            lines.append("  refunded:     \(revoked) (\(how))")
        }
        if let request = t.refundRequest {
            lines.append("  refund request: \(request.status) since \(request.requestDate) (\(request.consumptionRequestReason))\(request.decisionDate.map { ", decided \($0)" } ?? "")")
            for information in request.consumption {
                lines.append("    consumption v\(information.version) at \(information.date): \(information.fields)")
            }
        }
        lines.append("  order:        \(t.orderId)")
        lines.append("  signed:       \(t.signedTransaction == nil ? "no (not completed)" : "yes; --json prints signedTransaction")")
        if let subscription {
            lines.append("subscription \(subscription.originalTransactionId) (group \(subscription.groupId))")
            lines.append(contentsOf: subscription.detailLines.map { "  \($0)" })
        }
        return lines
    }
}

/// `storekit tx refund`: refunds a transaction, as a customer's approved refund request would.
struct RefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refund",
        abstract: "Refund a transaction now; a non-consumable's restores are revoked with it.",
        discussion: """
        The app sees the transaction revoked (Transaction.updates, revocationDate) and its server receives a REFUND \
        notification.

        Example:
          storekit tx refund 2000000000000001
          storekit tx refund 2000000000000001 --reason app-issue
          storekit tx refund 2000000000000001 --server http://127.0.0.1:8080
        """
    )

    /// Why the refund was given.
    enum Reason: String, ExpressibleByArgument, CaseIterable {
        case other, appIssue = "app-issue"
    }

    @Argument(help: ArgumentHelp("The transaction identifier.", valueName: "id"))
    var transactionID: String

    @Option(help: "Why: other (default) or app-issue (Apple's revocationReason 0 or 1).")
    var reason: Reason = .other

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    func run() async throws {
        let store = try remote.control(location: location) { nil }
        let revoked = try await store.refund(
            try parseTransactionID(transactionID), reason: reason == .appIssue ? .refundedDueToIssue : .refundedForOtherReason
        )
        revoked.forEach { print("refunded \($0.line)") }
    }
}

/// `storekit tx request-refund`: a customer's refund request, as `Transaction.beginRefundRequest` makes it.
struct RequestRefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request-refund",
        abstract: "Ask for a refund as the customer would; pending when the store waits for decisions.",
        discussion: """
        With the setting refund-requests-await-decision on (`storekit settings set --refund-requests-await-decision \
        on`), the request waits: the app's server receives CONSUMPTION_REQUEST (for a consumable, a non-renewing or \
        an auto-renewable subscription) with --reason as its consumptionRequestReason, may answer with Send \
        Consumption Information (shown by `storekit tx show`), and `storekit tx decide-refund` decides. Off, the \
        request is decided now: refunded (REFUND), or declined (REFUND_DECLINED) with --reject.

        Example:
          storekit tx request-refund 2000000000000001 --reason UNINTENDED_PURCHASE
          storekit tx request-refund 2000000000000001 --reject --server http://127.0.0.1:8080
        """
    )

    @Argument(help: ArgumentHelp("The transaction identifier.", valueName: "id"))
    var transactionID: String

    @Option(help: "Apple's consumptionRequestReason: UNINTENDED_PURCHASE, FULFILLMENT_ISSUE, UNSATISFIED_WITH_PURCHASE, LEGAL or OTHER (default).")
    var reason: String = ConsumptionRequestReason.other.rawValue

    @Flag(help: "When the store decides at once: decline instead of refunding.")
    var reject = false

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
        guard ConsumptionRequestReason(rawValue: reason) != nil else {
            throw ValidationError("--reason \(reason) is not a consumptionRequestReason. Use one of \(ConsumptionRequestReason.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    func run() async throws {
        let store = try remote.control(location: location) { nil }
        let transaction = try await store.requestRefund(
            try parseTransactionID(transactionID), reason: ConsumptionRequestReason(rawValue: reason) ?? .other, approve: !reject
        )
        if let request = transaction.refundRequest, request.status == "pending" {
            print("refund request pending for \(transaction.line) (\(request.consumptionRequestReason)); decide with `storekit tx decide-refund \(transaction.transactionId)`")
        } else {
            print("\(transaction.revocationDate == nil ? "declined" : "refunded") \(transaction.line)")
        }
    }
}

/// `storekit tx decide-refund`: decides a pending refund request, as App Store review does.
struct DecideRefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide-refund",
        abstract: "Decide a pending refund request: refund in full, prorated, or decline.",
        discussion: """
        --refund sends REFUND (revocationType REFUND_FULL); --prorated MILLI sends REFUND with REFUND_PRORATED and \
        revocationPercentage MILLI (milli-percent: 50000 is 50%); --decline sends REFUND_DECLINED and the \
        transaction stays. A refund revokes what `storekit tx refund` revokes, and family members who shared the \
        purchase receive REVOKE.

        Example:
          storekit tx decide-refund 2000000000000001 --refund
          storekit tx decide-refund 2000000000000001 --prorated 50000 --reason app-issue
          storekit tx decide-refund 2000000000000001 --decline --server http://127.0.0.1:8080
        """
    )

    @Argument(help: ArgumentHelp("The transaction identifier.", valueName: "id"))
    var transactionID: String

    @Flag(help: "Refund in full.")
    var refund = false

    @Option(help: ArgumentHelp("Refund this share, in milli-percent (1 to 100000).", valueName: "milli-percent"))
    var prorated: Int?

    @Flag(help: "Decline the request.")
    var decline = false

    @Option(help: "Why a refund was given: other (default) or app-issue (Apple's revocationReason 0 or 1).")
    var reason: RefundCommand.Reason = .other

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
        guard [refund, prorated != nil, decline].filter({ $0 }).count == 1 else {
            throw ValidationError("Give exactly one of --refund, --prorated MILLI-PERCENT or --decline.")
        }
        if let prorated, !(1...100_000).contains(prorated) {
            throw ValidationError("--prorated \(prorated) is out of range: give milli-percent from 1 to 100000 (50000 is 50%).")
        }
    }

    func run() async throws {
        let decision: RefundDecision = if let prorated { .refundProrated(percentage: prorated) } else if decline { .decline } else { .refundFull }
        let transaction = try await remote.control(location: location) { nil }.decideRefund(
            try parseTransactionID(transactionID), decision, reason: reason == .appIssue ? .refundedDueToIssue : .refundedForOtherReason
        )
        print("\(decline ? "declined" : "refunded") \(transaction.line)")
    }
}

/// `storekit tx reverse-refund`: reverses a refund, as the App Store does after a dispute.
struct ReverseRefundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse-refund",
        abstract: "Reverse a refund: the purchase grants its product again and the app's server hears REFUND_REVERSED.",
        discussion: """
        Example:
          storekit tx reverse-refund 2000000000000001
          storekit tx reverse-refund 2000000000000001 --server http://127.0.0.1:8080
        """
    )

    @Argument(help: ArgumentHelp("The transaction identifier.", valueName: "id"))
    var transactionID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    func run() async throws {
        let transaction = try await remote.control(location: location) { nil }.reverseRefund(try parseTransactionID(transactionID))
        print("reversed the refund of \(transaction.line)")
    }
}

/// `storekit tx delete`: removes a transaction as if it never happened.
struct DeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a transaction and the restores derived from it (a test control, not a refund).",
        discussion: """
        Example:
          storekit tx delete 2000000000000001
          storekit tx delete 2000000000000001 --tenant scenario-1
        """
    )

    @Argument(help: ArgumentHelp("The transaction identifier.", valueName: "id"))
    var transactionID: String

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    func run() async throws {
        let deleted = try await remote.control(location: location) { nil }.delete(try parseTransactionID(transactionID))
        print("deleted \(deleted.map(String.init).joined(separator: ", "))")
    }
}

/// `storekit tx clear`: deletes every transaction of the store.
struct ClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Delete every transaction of the store; receipts become empty.",
        discussion: """
        Accounts and certificates are kept. Example:
          storekit tx clear --data-dir /tmp/store
          storekit tx clear --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func run() async throws {
        try await remote.control(location: location) { nil }.clear()
        let place = try remote.serverURL().map { "on the server at \($0.absoluteString)" } ?? "in \(location.directory.url.path)"
        print("cleared all transactions of store \"\(location.resolvedTenant)\" \(place)")
    }
}

/// The transaction commands' former top-level names (`storekit refund`, `storekit transactions`, …), hidden from help:
/// using one says which `storekit tx` subcommand replaced it, instead of a bare "unexpected argument".
struct MovedTransactionCommand: ParsableCommand {
    /// Each former name, and the `storekit tx` subcommand that replaced it.
    static let replacements = [
        "transactions": "list", "refund": "refund", "approve": "approve", "decline": "decline", "resolve": "resolve",
        "renew": "renew", "expire": "expire", "auto-renew": "auto-renew", "price-consent": "price-consent",
        "delete": "delete", "clear": "clear",
    ]

    static let configuration = CommandConfiguration(
        commandName: "transactions",
        abstract: "Moved: the transaction commands are `storekit tx` subcommands.",
        shouldDisplay: false,
        aliases: replacements.keys.filter { $0 != "transactions" }.sorted()
    )

    @Argument(parsing: .allUnrecognized, help: "Ignored.")
    var arguments: [String] = []

    func run() throws {
        let name = CommandLine.arguments.dropFirst().first { Self.replacements[$0] != nil } ?? "transactions"
        let replacement = Self.replacements[name] ?? "list"
        throw ValidationError("`storekit \(name)` is now `storekit tx \(replacement)`, with the same arguments and options. `storekit tx --help` lists the transaction commands.")
    }
}
