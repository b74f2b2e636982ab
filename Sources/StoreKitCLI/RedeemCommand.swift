import AppStoreServer
import AppStoreEngine
import ArgumentParser
import Foundation

/// `storekit redeem`: redeems an offer code, as a customer does in the App Store.
struct RedeemCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "redeem",
        abstract: "Redeem a subscription offer code and print the transaction it makes.",
        discussion: """
        CODE is the reference name of one of the configuration's code offers (`codeOffers`). The code's \
        subscription is bought with the offer outside any app, so the app's payment queue delivers the transaction \
        at its next look, and the app's server gets OFFER_REDEEMED. A code whose eligibility excludes the account \
        (a current subscriber redeeming a code for new customers, say) is refused.

        Example:
          storekit redeem "Launch code" --config Examples/Demo.storekit
          storekit redeem "Launch code" --config Examples/Demo.storekit --account alice --json
        """
    )

    @Argument(help: "The offer code's reference name.")
    var code: String

    @Option(help: ArgumentHelp("The .storekit file that lists the products and their codes (not needed with --server).", valueName: "file"))
    var config: String?

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app the subscription is for.", valueName: "id"))
    var bundleID: String = environmentBundleID

    @Option(help: ArgumentHelp("The redeeming account (Apple ID).", valueName: "name"))
    var account: String = StoreDefaults.accountID

    @Flag(help: "Print the transaction as one JSON object, with its signed form.")
    var json = false

    func run() async throws {
        let output = try await remote.control(location: location, config: config, why: "that lists the codes")
            .redeem(code: code, accountID: account, bundleID: bundleID)
        if json { try printJSON(output) } else { print(output.line) }
    }
}
