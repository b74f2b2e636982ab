import AppStoreServer
import AppStoreEngine
import ArgumentParser
import Foundation
import AppStoreFormats
import AppStoreHosting
import StoreKitConfiguration

/// `storekit purchase`: buys a product in the embedded store.
struct PurchaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purchase",
        abstract: "Buy a product in the embedded store and print the transaction.",
        discussion: """
        With --json the output includes `signedTransaction`, the JWS Apple's libraries verify given the root \
        from `storekit ca export`.

        The purchase is stored in the data directory at once, so it survives the process and shows in \
        `storekit tx list`, in a running `storekit serve` and in apps that use the same directory.

        Example:
          storekit purchase com.example.demo.premium --config Examples/Demo.storekit --json
          storekit purchase com.example.demo.coins.100 --config Examples/Demo.storekit --quantity 3 --account alice
          storekit purchase com.example.demo.premium --server http://127.0.0.1:8080 --tenant checkout-42
        """
    )

    @Argument(help: "The product identifier to buy.")
    var productID: String

    @Option(help: ArgumentHelp("The .storekit file that lists the products (not needed with --server).", valueName: "file"))
    var config: String?

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app the purchase is for.", valueName: "id"))
    var bundleID: String = environmentBundleID

    @Option(help: ArgumentHelp("The buying account (Apple ID).", valueName: "name"))
    var account: String = StoreDefaults.accountID

    @Option(help: "How many to buy (1 to 10).")
    var quantity: Int = 1

    @Option(name: .customLong("billing-plan"), help: ArgumentHelp("A subscription's billing plan: MONTHLY bills monthly with a 12-month commitment, for a product whose billingPlans offer it; BILLED_UPFRONT (the default) bills each period in full.", valueName: "type"))
    var billingPlan: String?

    @Flag(help: "Print the transaction as one JSON object.")
    var json = false

    func run() async throws {
        let store = try await remote.control(location: location, config: config, why: "it sells")
        let output = try await store.purchase(
            PurchaseRequest(
                productID: productID, accountID: account, bundleID: bundleID, quantity: quantity,
                billingPlanType: billingPlan.map { BillingPlanType(rawValue: $0.uppercased()) }
            )
        )
        if json { try printJSON(output) } else { print(output.line) }
    }
}
