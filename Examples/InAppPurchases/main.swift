// A terminal port of Apple's sample "Offering, completing, and restoring in-app purchases".
//
// Run it against a store configured like Xcode's StoreKit scheme option:
//
//   OPENSTOREKIT_CONFIG=Examples/Demo.storekit OPENSTOREKIT_DATA_DIR=/tmp/demo-store swift run InAppPurchases
//
// Purchases land in the data directory: `storekit tx list --data-dir /tmp/demo-store` lists them.
#if canImport(StoreKit)
import StoreKit
#else
import OpenStoreKit
#endif
import Foundation

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("--help") || arguments.contains("-h") {
    Terminal.say("""
    USAGE: InAppPurchases [--manual-finish]

    Commands, one per line: products, buy <number|product-id> [quantity], restore, purchases, queue,
    finish, receipt, help, quit.
    --manual-finish leaves purchased transactions unfinished until the `finish` command.
    """)
    exit(0)
}

let observer = StoreObserver.shared
observer.finishesAutomatically = !arguments.contains("--manual-finish")

// Add the observer at launch, so transactions left unfinished by an earlier run are delivered.
SKPaymentQueue.default().add(observer)
Terminal.say("InAppPurchases: payments \(observer.isAuthorizedForPayments ? "allowed" : "not allowed") in storefront \(SKPaymentQueue.default().storefront?.countryCode ?? "unknown")")

let store = StoreManager.shared

@MainActor
func showProducts() async {
    await store.fetchProducts(matchingIdentifiers: ProductIdentifiers.all)
    for (index, product) in store.availableProducts.enumerated() {
        Terminal.say("\(index + 1). \(product.localizedTitle) — \(product.regularPrice ?? "?") (\(product.productIdentifier))")
    }
    if !store.invalidProductIdentifiers.isEmpty {
        Terminal.say("not for sale: \(store.invalidProductIdentifiers.joined(separator: ", "))")
    }
}

@MainActor
func buy(_ words: [Substring]) async {
    guard let target = words.first else { return Terminal.say("usage: buy <number|product-id> [quantity]") }
    if store.availableProducts.isEmpty { await store.fetchProducts(matchingIdentifiers: ProductIdentifiers.all) }
    let product = Int(target).flatMap { store.availableProducts.indices.contains($0 - 1) ? store.availableProducts[$0 - 1] : nil }
        ?? store.availableProducts.first { $0.productIdentifier == target }
    guard let product else { return Terminal.say("no product \(target); type `products` to list them") }
    guard observer.isAuthorizedForPayments else { return Terminal.say("this account may not make payments") }
    await observer.buy(product, quantity: words.dropFirst().first.flatMap { Int($0) } ?? 1)
}

@MainActor
func showPurchases() {
    if observer.purchased.isEmpty && observer.restored.isEmpty { return Terminal.say("no purchases this session") }
    for transaction in observer.purchased {
        Terminal.say("purchase \(transaction.payment.productIdentifier) transaction \(transaction.transactionIdentifier ?? "?") on \(transaction.transactionDate.map { "\($0)" } ?? "?")")
    }
    for transaction in observer.restored {
        Terminal.say("restore \(transaction.payment.productIdentifier) transaction \(transaction.transactionIdentifier ?? "?") of \(transaction.original?.transactionIdentifier ?? "?") from \(transaction.original?.transactionDate.map { "\($0)" } ?? "?")")
    }
}

@MainActor
func showQueue() {
    let transactions = SKPaymentQueue.default().transactions
    if transactions.isEmpty { return Terminal.say("the payment queue is empty") }
    for transaction in transactions {
        Terminal.say("queued \(transaction.payment.productIdentifier) \(transaction.transactionState) \(transaction.transactionIdentifier ?? "-")")
    }
}

@MainActor
func showReceipt() {
    #if canImport(StoreKit)
    let receiptURL = Bundle.main.appStoreReceiptURL
    #else
    let receiptURL = SKPaymentQueue.default().appStoreReceiptURL
    #endif
    guard let receiptURL, let data = try? Data(contentsOf: receiptURL) else { return Terminal.say("no receipt yet") }
    Terminal.say("receipt: \(data.count) bytes at \(receiptURL.path)")
}

Terminal.say("ready")
commands: while let line = await Terminal.readCommand() {
    let words = line.split(separator: " ")
    switch words.first ?? "" {
    case "": continue
    case "products": await showProducts()
    case "buy": await buy(Array(words.dropFirst()))
    case "restore": await observer.restore()
    case "purchases": showPurchases()
    case "queue": showQueue()
    case "finish": await observer.finish(SKPaymentQueue.default().transactions.filter { $0.transactionState != .purchasing && $0.transactionState != .deferred })
    case "receipt": showReceipt()
    case "help": Terminal.say("products, buy <number|product-id> [quantity], restore, purchases, queue, finish, receipt, quit")
    case "quit", "exit": break commands
    default: Terminal.say("unknown command \(words[0]); type `help`")
    }
    Terminal.say("ready")
}
SKPaymentQueue.default().remove(observer)
