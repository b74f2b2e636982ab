import AppStoreServer
import AppStoreEngine
import ArgumentParser
import Foundation

/// What `storekit tx approve`, `decline`, `resolve`, `renew`, `expire`, `auto-renew` and `price-consent` share: the
/// transaction, and the store to act on.
struct TransactionActionOptions: ParsableArguments {
    @Argument(help: "The transaction identifier (for a subscription action, any transaction of the subscription).")
    var transactionID: String

    @Option(help: ArgumentHelp(
        "The .storekit file that lists the products, so the store knows what it renews (not needed with --server).",
        valueName: "file"
    ))
    var config: String?

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    func validate() throws {
        _ = try parseTransactionID(transactionID)
    }

    /// The store to act on, and the transaction.
    func control() async throws -> (any StoreControl, UInt64) {
        let control = try await remote.control(location: location, config: config, why: "it sells")
        return (control, try parseTransactionID(transactionID))
    }
}

/// `storekit tx approve`: a parent approves an Ask to Buy request.
struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Approve a pending Ask to Buy request: the purchase completes now.",
        discussion: """
            A purchase waits for approval when Ask to Buy is on (the .storekit file's setting, or \
            `storekit settings set --ask-to-buy on` on a running server); approving completes it and the app \
            receives the transaction through Transaction.updates.

            Example:
              storekit tx approve 2000000000000001 --config Examples/Demo.storekit
              storekit tx approve 2000000000000001 --server http://127.0.0.1:8080
            """
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try await options.control()
        print(try await store.act(.approve, on: id).line)
    }
}

/// `storekit tx decline`: a parent declines an Ask to Buy request.
struct DeclineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline", abstract: "Decline a pending Ask to Buy request: the purchase fails, nothing is charged.",
        discussion: """
            The purchase that waited for approval is declined; the app sees it fail, nothing is charged.

            Example:
              storekit tx decline 2000000000000001 --config Examples/Demo.storekit
              storekit tx decline 2000000000000001 --server http://127.0.0.1:8080
            """
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try await options.control()
        print(try await store.act(.decline, on: id).line)
    }
}

/// `storekit tx resolve`: the customer fixes a billing issue.
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve a billing issue: an interrupted purchase completes; a subscription in billing retry renews.",
        discussion: """
            An interrupted purchase (interrupted purchases on) completes; a subscription in billing retry or grace \
            period (billing issues on) renews now.

            Example:
              storekit tx resolve 2000000000000001 --config Examples/Demo.storekit
              storekit tx resolve 2000000000000001 --server http://127.0.0.1:8080
            """
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try await options.control()
        print(try await store.act(.resolve, on: id).line)
    }
}

/// `storekit tx renew`: a subscription renews now.
struct RenewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew", abstract: "Renew a subscription now: its period ends and a new one starts, auto-renew on.",
        discussion: """
            Give any transaction of the subscription; the renewal transaction is printed, and the app's server \
            receives DID_RENEW.

            Example:
              storekit tx renew 2000000000000001 --config Examples/Demo.storekit
              storekit tx renew 2000000000000001 --server http://127.0.0.1:8080
            """
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try await options.control()
        print(try await store.renew(subscriptionOf: id).line)
    }
}

/// `storekit tx expire`: a subscription expires now.
struct ExpireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expire", abstract: "Expire a subscription now: auto-renew off, the period ends (EXPIRED/VOLUNTARY).",
        discussion: """
            Give any transaction of the subscription. The app's server receives EXPIRED/VOLUNTARY.

            Example:
              storekit tx expire 2000000000000001 --config Examples/Demo.storekit
              storekit tx expire 2000000000000001 --server http://127.0.0.1:8080
            """
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try await options.control()
        let subscription = try await store.change(subscriptionOf: id, .expire)
        print("\(subscription.id)  \(subscription.productID)  \(subscription.status.rawValue) at \(subscription.expiresDate.formatted(.iso8601))")
    }
}

/// `storekit tx auto-renew`: the customer turns auto-renew on or off.
struct AutoRenewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auto-renew", abstract: "Turn a subscription's auto-renew on or off, as the customer does in their settings.",
        discussion: """
            With auto-renew off the subscription expires at the end of its period; the app's server receives \
            DID_CHANGE_RENEWAL_STATUS.

            Example:
              storekit tx auto-renew 2000000000000001 off --config Examples/Demo.storekit
              storekit tx auto-renew 2000000000000001 on --server http://127.0.0.1:8080
            """
    )
    /// On or off.
    enum Switch: String, ExpressibleByArgument, CaseIterable { case on, off }

    @OptionGroup var options: TransactionActionOptions
    @Argument(help: "on or off.")
    var state: Switch

    func run() async throws {
        let (store, id) = try await options.control()
        let subscription = try await store.change(subscriptionOf: id, .autoRenew(state == .on))
        print("\(subscription.id)  \(subscription.productID)  auto-renew \(subscription.autoRenewEnabled ? "on" : "off")")
    }
}

/// `storekit tx price-consent`: ask for, or answer, consent to a price increase.
struct PriceConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "price-consent",
        abstract: "Ask a subscriber to consent to a price increase, or answer for them.",
        discussion: """
            request asks (PRICE_INCREASE/PENDING; without consent by the renewal date the subscription expires), \
            accept consents (it renews at the new price), decline turns auto-renew off.

            Example:
              storekit tx price-consent 2000000000000001 request --config Demo.storekit
              storekit tx price-consent 2000000000000001 accept --config Demo.storekit
            """
    )
    /// What to do.
    enum Action: String, ExpressibleByArgument, CaseIterable { case request, accept, decline }

    @OptionGroup var options: TransactionActionOptions
    @Argument(help: "request, accept or decline.")
    var action: Action

    func run() async throws {
        let (store, id) = try await options.control()
        let changed = switch action {
        case .request: try await store.change(subscriptionOf: id, .requestPriceConsent)
        case .accept: try await store.change(subscriptionOf: id, .answerPriceConsent(true))
        case .decline: try await store.change(subscriptionOf: id, .answerPriceConsent(false))
        }
        print("\(changed.id)  \(changed.productID)  price increase \(changed.priceIncrease?.rawValue ?? "none")  auto-renew \(changed.autoRenewEnabled ? "on" : "off")")
    }
}
