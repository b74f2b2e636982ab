import AppStoreEngine
import AppStoreHosting
import ArgumentParser
import Foundation

/// `storekit promote`: starts a promoted in-app purchase, as a customer tapping it on the App Store would.
struct PromoteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote",
        abstract: "Start a promoted in-app purchase: the app's observer is asked shouldAddStorePayment.",
        discussion: """
        The purchase waits in the store until the app runs; the device then hands it to the app: StoreKit 2's \
        `PurchaseIntent.intents` (with the win-back offer, if one was chosen), or the Original API's \
        `paymentQueue(_:shouldAddStorePayment:for:)`, where `true` buys at once and `false` leaves the app to add \
        the payment later. Either way the promotion is consumed. Pass a product identifier, or Apple's test URL.

        Example:
          storekit promote com.example.demo.premium --config Examples/Demo.storekit --bundle-id com.example.demo
          storekit promote com.example.demo.plus.monthly --win-back-offer plus.monthly.winback --config Examples/Demo.storekit
          storekit promote 'itms-services://?action=purchaseIntent&bundleId=com.example.demo&productIdentifier=com.example.demo.premium' --config Examples/Demo.storekit
        """
    )

    @Argument(help: ArgumentHelp(
        "The product identifier, or an itms-services://?action=purchaseIntent&bundleId=…&productIdentifier=… URL.",
        valueName: "product-or-url"
    ))
    var target: String

    @Option(help: ArgumentHelp("The .storekit file that lists the products; defaults to $OPENSTOREKIT_CONFIG.", valueName: "file"))
    var config: String?

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp(
        "The app to open; taken from the URL when one is given, else $OPENSTOREKIT_BUNDLE_ID, else com.example.app.",
        valueName: "id"
    ))
    var bundleID: String?

    @Option(help: ArgumentHelp("The customer's account (Apple ID).", valueName: "name"))
    var account: String = StoreDefaults.accountID

    @Option(name: .customLong("win-back-offer"), help: ArgumentHelp(
        "A win-back offer of the subscription the customer chose on the App Store; StoreKit 2's PurchaseIntent.offer.",
        valueName: "offer-id"
    ))
    var winBackOffer: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let (productID, app) = try resolveTarget(environment: environment)
        let store = try remote.control(location: location) {
            guard let path = config ?? EnvironmentVariables.value(EnvironmentVariables.configuration, in: environment) else {
                throw ValidationError("Name the .storekit file with --config or OPENSTOREKIT_CONFIG, or promote on a running server with --server URL.")
            }
            return try loadConfiguration(path)
        }
        let intent = try await store.promote(productID: productID, accountID: account, bundleID: app, winBackOfferID: winBackOffer)
        let offer = intent.winBackOfferID.map { " with win-back offer \($0)" } ?? ""
        print("promoted \(intent.productID)\(offer) for \(intent.bundleID) [\(intent.accountID)]: the app hears of it on its next sync")
    }

    /// The product and app: from the URL, or from the arguments.
    func resolveTarget(environment: [String: String]) throws -> (productID: String, bundleID: String) {
        guard target.lowercased().hasPrefix("itms-services:") else {
            return (target, bundleID ?? EnvironmentVariables.value(EnvironmentVariables.bundleID, in: environment) ?? StoreDefaults.bundleID)
        }
        guard let url = URL(string: target), let intent = PurchaseIntentURL(url) else {
            throw ValidationError("\(target) is not a purchase-intent URL. Use itms-services://?action=purchaseIntent&bundleId=APP&productIdentifier=PRODUCT.")
        }
        if let bundleID, bundleID != intent.bundleID {
            throw ValidationError("The URL is for \(intent.bundleID) but --bundle-id says \(bundleID). Drop one of them.")
        }
        return (intent.productID, intent.bundleID)
    }
}
