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
            TransactionsCommand.self,
            SubscriptionsCommand.self,
            RedeemCommand.self,
            ApproveCommand.self,
            DeclineCommand.self,
            ResolveCommand.self,
            RenewCommand.self,
            ExpireCommand.self,
            AutoRenewCommand.self,
            PriceConsentCommand.self,
            NotificationsCommand.self,
            ClockCommand.self,
            RefundCommand.self,
            DeleteCommand.self,
            ClearCommand.self,
            PromoteCommand.self,
            CACommand.self,
            KeysCommand.self,
            ReceiptCommand.self,
            JWSCommand.self,
            BenchCommand.self,
        ]
    )
}
