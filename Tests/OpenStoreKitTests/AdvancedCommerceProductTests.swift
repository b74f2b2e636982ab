import AppStoreEngine
import AppStoreFormats
import Crypto
import Foundation
import OpenStoreKit
import OpenStoreKitTest
import Testing

/// `AdvancedCommerceProduct.purchase(compactJWS:)` (in-process here, over HTTP in OpenStoreKitHTTPTests): the signed request prices the purchase,
/// and the transaction's signed form carries its items.
@Suite("AdvancedCommerceProduct")
struct AdvancedCommerceProductTests {
    @Test("A one-time charge signed with the store's In-App Purchase key buys the generic product at the request's price; a request signed with another key is refused")
    func oneTimeCharge() async throws {
        let session = try SKTestSession(contentsOf: demoConfiguration, scope: .isolated, clock: VirtualClock(start: testStart), transport: sessionTransport)
        session.disableDialogs = true
        let signer = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "IAPKEY", bundleID: session.environment.bundleID)
        await session.engine.addPromotionalOfferKey(signer.key)
        var request = AdvancedCommerceInAppRequest(
            operation: AdvancedCommerceInAppRequest.createOneTimeCharge,
            requestInfo: AdvancedCommerceRequestInfo(requestReferenceId: UUID().uuidString.lowercased()), currency: "USD", taxCode: "C003-00-1"
        )
        request.item = AdvancedCommerceRequestItem(sku: "gems.pack.7", description: "Seven gems", displayName: "Gems", price: 2_490)
        let issuedAt = Int64(testStart.timeIntervalSince1970)
        let jws = try signer.signAdvancedCommerceRequest(request, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt)
        try await session.run {
            let product = try await AdvancedCommerceProduct(id: Demo.coins)
            #expect(product.type == .consumable)
            let transaction = try #require(try await product.purchase(compactJWS: jws).verifiedTransaction)
            #expect(transaction.productID == Demo.coins)
            #expect(transaction.price == Decimal(string: "2.49"))
            let payload = try AppStoreJSON.decode(JWSTransactionDecodedPayload.self, from: transaction.jsonRepresentation)
            #expect(payload.advancedCommerceInfo?.items?.first?.sku == "gems.pack.7")
            #expect(payload.advancedCommerceInfo?.taxCode == "C003-00-1")

            let stranger = PromotionalOfferSigner(privateKey: P256.Signing.PrivateKey(), keyID: "IAPKEY", bundleID: session.environment.bundleID)
            let forged = try stranger.signAdvancedCommerceRequest(request, issuerID: "issuer", nonce: UUID(), issuedAt: issuedAt)
            await #expect(throws: (any Error).self) { try await product.purchase(compactJWS: forged) }
        }
    }
}
