import AppStoreFormats
import Foundation
import Hummingbird
import NIOCore

extension StoreServer {
    /// Adds `/verifyReceipt` (production) and `/sandbox/verifyReceipt` (sandbox): POST answers with
    /// ``VerifyReceiptService``; any other method gets status 21000, as Apple answers.
    func addVerifyReceiptRoutes(to router: Router<StoreRequestContext>) {
        let service = VerifyReceiptService(engine: engine, sharedSecrets: sharedSecrets)
        let paths: [(RouterPath, AppStoreEnvironment)] = [("verifyReceipt", .production), ("sandbox/verifyReceipt", .sandbox)]
        for (path, environment) in paths {
            router.post(path) { request, context -> Response in
                if let read = context.verifyReceiptBody {
                    return Self.verifyReceiptResponse(await service.respond(to: read, environment: environment))
                }
                var request = request
                guard let body = try? await request.collectBody(upTo: VerifyReceiptService.maximumRequestSize) else {
                    return Self.verifyReceiptResponse(VerifyReceiptResponse(status: .malformedRequest))
                }
                return Self.verifyReceiptResponse(await service.respond(to: VerifyReceiptBody(Data(body.readableBytesView)), environment: environment))
            }
            for method in [HTTPRequest.Method.get, .put, .patch, .delete] {
                router.on(path, method: method) { _, _ -> Response in
                    Self.verifyReceiptResponse(VerifyReceiptResponse(status: .malformedRequest))
                }
            }
        }
    }

    /// A 200 response with a JSON body, as `verifyReceipt` always answers.
    static func verifyReceiptResponse(_ body: VerifyReceiptResponse) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(body)) ?? Data(#"{"status":21009}"#.utf8)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
