import AppStoreServer
import AppStoreEngine
import ArgumentParser
import Foundation

/// The store's answer to an action on a transaction: what `storekit approve`, `decline`, `resolve`, `renew`,
/// `expire`, `auto-renew` and `price-consent` share.
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
        if config == nil, try remote.serverURL() == nil {
            throw ValidationError("Missing --config: the store in the data directory needs the .storekit file it sells. Or act on a running server with --server URL.")
        }
    }

    /// The store to act on, and the transaction.
    func control() throws -> (any StoreControl, UInt64) {
        let control = try remote.control(location: location) { try config.map(loadConfiguration) }
        return (control, try parseTransactionID(transactionID))
    }
}

/// `storekit approve`: a parent approves an Ask to Buy request.
struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve", abstract: "Approve a pending Ask to Buy request: the purchase completes now.",
        discussion: "Example:\n  storekit approve 2000000000000001 --config Examples/Demo.storekit"
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try options.control()
        print(try await store.act(.approve, on: id).line)
    }
}

/// `storekit decline`: a parent declines an Ask to Buy request.
struct DeclineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decline", abstract: "Decline a pending Ask to Buy request: the purchase fails, nothing is charged.",
        discussion: "Example:\n  storekit decline 2000000000000001 --config Examples/Demo.storekit"
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try options.control()
        print(try await store.act(.decline, on: id).line)
    }
}

/// `storekit resolve`: the customer fixes a billing issue.
struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Resolve a billing issue: an interrupted purchase completes; a subscription in billing retry renews.",
        discussion: "Example:\n  storekit resolve 2000000000000001 --config Examples/Demo.storekit"
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try options.control()
        print(try await store.act(.resolve, on: id).line)
    }
}

/// `storekit renew`: a subscription renews now.
struct RenewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew", abstract: "Renew a subscription now: its period ends and a new one starts, auto-renew on.",
        discussion: "Example:\n  storekit renew 2000000000000001 --config Examples/Demo.storekit"
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try options.control()
        print(try await store.renew(subscriptionOf: id).line)
    }
}

/// `storekit expire`: a subscription expires now.
struct ExpireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expire", abstract: "Expire a subscription now: auto-renew off, the period ends (EXPIRED/VOLUNTARY).",
        discussion: "Example:\n  storekit expire 2000000000000001 --config Examples/Demo.storekit"
    )
    @OptionGroup var options: TransactionActionOptions

    func run() async throws {
        let (store, id) = try options.control()
        let subscription = try await store.change(subscriptionOf: id, .expire)
        print("\(subscription.id)  \(subscription.productID)  \(subscription.status.rawValue) at \(subscription.expiresDate.formatted(.iso8601))")
    }
}

/// `storekit auto-renew`: the customer turns auto-renew on or off.
struct AutoRenewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auto-renew", abstract: "Turn a subscription's auto-renew on or off, as the customer does in their settings.",
        discussion: "Example:\n  storekit auto-renew 2000000000000001 off --config Examples/Demo.storekit"
    )
    /// On or off.
    enum Switch: String, ExpressibleByArgument, CaseIterable { case on, off }

    @OptionGroup var options: TransactionActionOptions
    @Argument(help: "on or off.")
    var state: Switch

    func run() async throws {
        let (store, id) = try options.control()
        let subscription = try await store.change(subscriptionOf: id, .autoRenew(state == .on))
        print("\(subscription.id)  \(subscription.productID)  auto-renew \(subscription.autoRenewEnabled ? "on" : "off")")
    }
}

/// `storekit price-consent`: ask for, or answer, consent to a price increase.
struct PriceConsentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "price-consent",
        abstract: "Ask a subscriber to consent to a price increase, or answer for them.",
        discussion: """
            request asks (PRICE_INCREASE/PENDING; without consent by the renewal date the subscription expires), \
            accept consents (it renews at the new price), decline turns auto-renew off.

            Example:
              storekit price-consent 2000000000000001 request --config Examples/Demo.storekit
              storekit price-consent 2000000000000001 accept --config Examples/Demo.storekit
            """
    )
    /// What to do.
    enum Action: String, ExpressibleByArgument, CaseIterable { case request, accept, decline }

    @OptionGroup var options: TransactionActionOptions
    @Argument(help: "request, accept or decline.")
    var action: Action

    func run() async throws {
        let (store, id) = try options.control()
        let changed = switch action {
        case .request: try await store.change(subscriptionOf: id, .requestPriceConsent)
        case .accept: try await store.change(subscriptionOf: id, .answerPriceConsent(true))
        case .decline: try await store.change(subscriptionOf: id, .answerPriceConsent(false))
        }
        print("\(changed.id)  \(changed.productID)  price increase \(changed.priceIncrease?.rawValue ?? "none")  auto-renew \(changed.autoRenewEnabled ? "on" : "off")")
    }
}
