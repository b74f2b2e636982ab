import AppStoreEngine
import AppStoreServer
import ArgumentParser
import Foundation

/// `storekit external-purchase`: Apple's External Purchase APIs, driven as an app drives them.
struct ExternalPurchaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "external-purchase",
        abstract: "Get external purchase tokens as an app does, for a server to report to the External Purchase Server API.",
        discussion: """
        The store notifies the app's server with EXTERNAL_PURCHASE_TOKEN: CREATED for a new custom link token, \
        ACTIVE_TOKEN_REMINDER monthly while one is active, UNREPORTED when no report arrived in time — all on the \
        store's clock. The server reports tokens with PUT /externalPurchase/v1/reports and reads them back with \
        GET /externalPurchase/v1/reports/{requestIdentifier}, under an App Store Server API key.

        Examples:
          storekit external-purchase token ana --type SERVICES --bundle-id com.example.demo
          storekit external-purchase token ana --server http://127.0.0.1:8080 --json
        """,
        subcommands: [ExternalPurchaseTokenCommand.self]
    )
}

/// `storekit external-purchase token`: a token for an account's app.
struct ExternalPurchaseTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Get an external purchase token for an account's app, as ExternalPurchaseCustomLink.token(for:) or the notice sheet gets one.",
        discussion: """
        With --type ACQUISITION or SERVICES: the account's active custom link token of that type, else a new one (an \
        ACQUISITION token has one active period per customer and app). Without --type: a new notice-sheet token. \
        Prints the token's identifier and the value the app receives; --json prints it as the control API does \
        (POST /control/external-purchase-tokens).
        """
    )

    @Argument(help: ArgumentHelp("The customer's account.", valueName: "account"))
    var account: String

    @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app.", valueName: "id"))
    var bundleID: String = StoreDefaults.bundleID

    @Option(name: .customLong("type"), help: ArgumentHelp("A custom link token's type: ACQUISITION or SERVICES.", valueName: "type"))
    var tokenType: String?

    @OptionGroup var location: StoreLocationOptions
    @OptionGroup var remote: ServerOptions

    @Flag(help: "Print the token as one JSON object.")
    var json = false

    func validate() throws {
        if account.isEmpty { throw ValidationError("The account is empty. Name the customer's account, e.g. `storekit external-purchase token ana`.") }
        if let tokenType, ExternalPurchaseTokenType(rawValue: tokenType) == nil {
            throw ValidationError("--type \(tokenType) is not a custom link token type: give ACQUISITION or SERVICES, or leave it out for a notice-sheet token.")
        }
    }

    func run() async throws {
        let type = tokenType.flatMap(ExternalPurchaseTokenType.init(rawValue:))
        guard let token = try await remote.control(location: location, configuration: { nil }).externalPurchaseToken(accountID: account, bundleID: bundleID, tokenType: type) else {
            throw CommandFailure("Account \"\(account)\" already used its one ACQUISITION token period in \(bundleID), as Apple allows one per customer and app: use another account to test ACQUISITION again.")
        }
        if json {
            try printJSON(token)
        } else {
            print("\(token.externalPurchaseId) \(token.tokenType ?? "notice-sheet") token for \(account) in \(bundleID)")
            print(token.value)
        }
    }
}
