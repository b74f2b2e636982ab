import AppStoreEngine
import ArgumentParser

/// The `storekit` command: a local App Store for testing in-app purchases.
@main
struct StoreKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storekit",
        abstract: "A local App Store: products from .storekit files, purchases, receipts and signed transactions.",
        version: StoreDefaults.version,
        subcommands: [
            ServeCommand.self,
            ConfigCommand.self,
            PurchaseCommand.self,
            TransactionCommand.self,
            SubscriptionsCommand.self,
            RedeemCommand.self,
            PromoteCommand.self,
            FamilyCommand.self,
            ExternalPurchaseCommand.self,
            NotificationsCommand.self,
            SettingsCommand.self,
            TenantsCommand.self,
            ClockCommand.self,
            CACommand.self,
            KeysCommand.self,
            ReceiptCommand.self,
            JWSCommand.self,
            BenchCommand.self,
            MovedTransactionCommand.self,
        ]
    )
}
