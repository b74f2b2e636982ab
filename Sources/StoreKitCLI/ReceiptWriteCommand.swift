import AppStoreEngine
import ArgumentParser
import Foundation

extension ReceiptCommand {
    /// `storekit receipt write`: the app receipt a device would hold, written to a file.
    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Write the app receipt of an account's purchases in an app (DER PKCS#7).",
            discussion: """
            The receipt lists the account's non-consumables and non-renewing subscriptions in the app, and the \
            consumables the device has not finished. It is signed by the store's certificate authority; verify it \
            with `storekit receipt verify FILE --root ROOT` (root from `storekit ca export`) or Apple's libraries. \
            `write` is the default: `storekit receipt --bundle-id …` means `storekit receipt write --bundle-id …`.

            Example:
              storekit receipt --bundle-id com.example.demo --out receipt.der
              storekit receipt write --bundle-id com.example.demo --account alice --device-id 956328D9-CC6A-47F4-BE40-6953FB0AB6C7 --out receipt.der
            """
        )

        @OptionGroup var location: StoreLocationOptions

        @Option(name: .customLong("bundle-id"), help: ArgumentHelp("The app whose receipt to write.", valueName: "id"))
        var bundleID: String = environmentBundleID

        @Option(help: ArgumentHelp("The account (Apple ID).", valueName: "name"))
        var account: String = StoreDefaults.accountID

        @Option(
            name: .customLong("device-id"),
            help: ArgumentHelp("The device's identifierForVendor, which the receipt's hash binds it to (default: all zeros).", valueName: "uuid")
        )
        var deviceID: String?

        @Option(help: ArgumentHelp("The app's version (CFBundleVersion).", valueName: "version"))
        var appVersion: String = "1"

        @Option(help: ArgumentHelp("Where to write the receipt.", valueName: "file"))
        var out: String

        func run() async throws {
            let device: UUID
            if let deviceID {
                guard let parsed = UUID(uuidString: deviceID) else {
                    throw ValidationError("\"\(deviceID)\" is not a UUID. Pass the device's identifier, e.g. 956328D9-CC6A-47F4-BE40-6953FB0AB6C7.")
                }
                device = parsed
            } else {
                device = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            }
            let store = try location.openStore()
            let receipt = try await store.appReceipt(accountID: account, bundleID: bundleID, deviceID: device, appVersion: appVersion)
            do {
                try receipt.write(to: URL(fileURLWithPath: out), options: .atomic)
            } catch {
                throw ValidationError("Cannot write \(out): \(error.localizedDescription). Choose a writable path.")
            }
            print("wrote \(receipt.count) bytes to \(out)")
        }
    }
}
