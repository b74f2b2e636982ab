import AppStoreEngine
import AppStoreFormats
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The Retention Messaging API's errors, with Apple's codes.
extension ServerAPIError {
    static func invalidImage(_ reason: String) -> ServerAPIError {
        ServerAPIError(status: .badRequest, errorCode: 4_000_161, errorMessage: "Invalid image. \(reason)")
    }
    static let headerTooLong = ServerAPIError(status: .badRequest, errorCode: 4_000_162, errorMessage: "Invalid request. The header is longer than 66 characters; shorten it.")
    static let bodyTooLong = ServerAPIError(status: .badRequest, errorCode: 4_000_163, errorMessage: "Invalid request. The body is longer than 144 characters; shorten it.")
    static let invalidLocale = ServerAPIError(status: .badRequest, errorCode: 4_000_164, errorMessage: "Invalid request. The locale is not an App Store locale short code such as en-US, fr-FR or zh-Hans (case-sensitive).")
    static let altTextTooLong = ServerAPIError(status: .badRequest, errorCode: 4_000_175, errorMessage: "Invalid request. An image's alternative text is longer than 150 characters; shorten it.")
    static let invalidPerformanceTestRequest = ServerAPIError(status: .badRequest, errorCode: 4_000_211, errorMessage: "Invalid request. Send {\"originalTransactionId\": \"…\"} with the original transaction of a subscription.")
    static let invalidRequestID = ServerAPIError(status: .badRequest, errorCode: 4_000_212, errorMessage: "Invalid request. The request ID is not one Initiate Performance Test hands out (a UUID).")
    static let existingPerformanceTestRun = ServerAPIError(status: .badRequest, errorCode: 4_000_213, errorMessage: "Invalid request. A performance test of this app is still running; get its results, then start another.")
    static let badRealtimeURL = ServerAPIError(status: .badRequest, errorCode: 4_000_215, errorMessage: "Invalid request. The realtimeURL must be an https:// (or, in this local store, http://) URL of at most 256 characters.")
    static let badImageSize = ServerAPIError(status: .badRequest, errorCode: 4_000_216, errorMessage: "Invalid request. The image size is invalid: use FULL_SIZE for a message's image and BULLET_POINT for bullet points.")
    static let tooManyBulletPoints = ServerAPIError(status: .badRequest, errorCode: 4_000_218, errorMessage: "Invalid request. A message has at most 5 bullet points.")
    static let bulletPointTextTooLong = ServerAPIError(status: .badRequest, errorCode: 4_000_219, errorMessage: "Invalid request. A bullet point's text is longer than 66 characters; shorten it.")
    static let aboveImageRequiresImage = ServerAPIError(status: .badRequest, errorCode: 4_000_224, errorMessage: "Invalid request. headerPosition ABOVE_IMAGE needs an image; add one or use ABOVE_BODY.")
    static let invalidTransactionType = ServerAPIError(status: .badRequest, errorCode: 4_000_047, errorMessage: "Invalid request. The transaction is not an auto-renewable subscription; use a subscription's original transaction.")
    static let maximumImages = ServerAPIError(status: .forbidden, errorCode: 4_030_014, errorMessage: "The app has the maximum of 2000 images; delete some first.")
    static let maximumMessages = ServerAPIError(status: .forbidden, errorCode: 4_030_016, errorMessage: "The app has the maximum number of messages; delete some first.")
    static let messageNotApproved = ServerAPIError(status: .forbidden, errorCode: 4_030_017, errorMessage: "The message is not APPROVED, so it can't be a default message. Check its state with Get Message List.")
    static let imageNotApproved = ServerAPIError(status: .forbidden, errorCode: 4_030_018, errorMessage: "An image of the message is not APPROVED, so the message can't be a default message. Check Get Image List.")
    static let imageInUse = ServerAPIError(status: .forbidden, errorCode: 4_030_019, errorMessage: "A message shows the image; delete the message first.")
    static let imageNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_014, errorMessage: "The image identifier was not found; upload the image first.")
    static let messageNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_015, errorMessage: "The message identifier was not found; upload the message first.")
    static let performanceTestRunNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_018, errorMessage: "No performance test of this app has this request ID.")
    static let defaultMessageNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_020, errorMessage: "No default message is configured for this product and locale.")
    static let realtimeURLNotFound = ServerAPIError(status: .notFound, errorCode: 4_040_021, errorMessage: "No Get Retention Message URL is configured; call Configure Realtime URL first.")
    static let imageAlreadyExists = ServerAPIError(status: .conflict, errorCode: 4_090_000, errorMessage: "The image identifier already exists; upload with a new UUID or delete the image first.")
    static let messageAlreadyExists = ServerAPIError(status: .conflict, errorCode: 4_090_001, errorMessage: "The message identifier already exists; upload with a new UUID or delete the message first.")

    static func badRequest(_ reason: String) -> ServerAPIError {
        ServerAPIError(status: .badRequest, errorCode: 4_000_000, errorMessage: "Invalid request. \(reason)")
    }
    static func notSubscriptionProduct(_ productID: String) -> ServerAPIError {
        ServerAPIError(status: .badRequest, errorCode: 4_000_023, errorMessage: "Invalid request. The product id parameter is invalid: \(productID) is not an auto-renewable subscription of this store's catalog.")
    }
}

/// `GET /inApps/v1/messaging/image/list`.
struct GetImageListResponse: Encodable {
    struct Item: Encodable {
        var imageIdentifier: String
        var imageState: String
        var imageSize: String
    }

    var imageIdentifiers: [Item]
}

/// `GET /inApps/v1/messaging/message/list`.
struct GetMessageListResponse: Encodable {
    struct Item: Encodable {
        var messageIdentifier: String
        var messageState: String
    }

    var messageIdentifiers: [Item]
}

/// The body of `PUT /inApps/v1/messaging/message/{messageIdentifier}`.
struct UploadMessageRequestBody: Decodable {
    struct Image: Decodable {
        var imageIdentifier: String?
        var altText: String?
    }

    struct BulletPoint: Decodable {
        var text: String?
        var imageIdentifier: String?
        var altText: String?
    }

    var header: String?
    var body: String?
    var image: Image?
    var headerPosition: String?
    var bulletPoints: [BulletPoint]?
}

/// The body of `PUT /inApps/v1/messaging/default/{productId}/{locale}`.
struct DefaultConfigurationRequest: Decodable {
    var messageIdentifier: String?
}

/// `GET /inApps/v1/messaging/default/{productId}/{locale}`.
struct DefaultConfigurationResponse: Encodable {
    var messageIdentifier: String
}

/// The body of `PUT`, and the answer of `GET`, `/inApps/v1/messaging/realtime/url`.
struct RealtimeURLBody: Codable {
    var realtimeURL: String?
}

/// The body of `POST /inApps/v1/messaging/performanceTest`.
struct PerformanceTestRequest: Decodable {
    var originalTransactionId: String?
}

/// Apple's `PerformanceTestConfig`.
struct PerformanceTestConfig: Encodable {
    var maxConcurrentRequests: Int
    var totalRequests: Int
    var totalDuration: Int
    var responseTimeThreshold: Int
    var successRateThreshold: Int

    init(_ settings: PerformanceTestSettings) {
        maxConcurrentRequests = settings.maxConcurrentRequests
        totalRequests = settings.totalRequests
        totalDuration = settings.totalDuration
        responseTimeThreshold = settings.responseTimeThreshold
        successRateThreshold = settings.successRateThreshold
    }
}

/// `POST /inApps/v1/messaging/performanceTest`.
struct PerformanceTestResponse: Encodable {
    var config: PerformanceTestConfig
    var requestId: String
}

/// `GET /inApps/v1/messaging/performanceTest/result/{requestId}`.
struct PerformanceTestResultResponse: Encodable {
    struct ResponseTimes: Encodable {
        var average: Int
        var p50: Int
        var p90: Int
        var p95: Int
        var p99: Int
    }

    var config: PerformanceTestConfig
    var target: String
    var result: String
    var successRate: Int
    var numPending: Int
    var responseTimes: ResponseTimes?
    var failures: [String: Int]

    init(_ run: PerformanceTestRun) {
        config = PerformanceTestConfig(run.settings)
        target = run.target.absoluteString
        result = run.status
        successRate = run.successRate
        numPending = run.pendingCount
        responseTimes = run.responseTimes.map { ResponseTimes(average: $0.average, p50: $0.p50, p90: $0.p90, p95: $0.p95, p99: $0.p99) }
        failures = run.failures
    }
}

/// The body of the control routes that set a review state: `{"state": "REJECTED"}`.
struct RetentionReviewRequest: Decodable {
    var state: String?
}

/// The Retention Messaging API (`/inApps/v1/messaging/…`): images, messages, default messages, the Get Retention
/// Message URL and its performance test, per app, authenticated as the rest of the App Store Server API. Also
/// `PUT /control/retention/{bundleId}/images|messages/{identifier}/state`, to play App Review.
struct RetentionMessagingRoutes {
    let engine: StoreEngine
    let authenticator: ServerAPIAuthenticator
    let logger: Logger
    let performanceTestSettings: PerformanceTestSettings
    /// The content, kept in the tenant's storage, and the performance tests this server runs.
    let store: RetentionMessagingStore

    /// The largest image upload read, 32 MB: more than any 3840 × 2160 PNG needs.
    static let maximumImageBytes = 32 << 20

    init(engine: StoreEngine, authenticator: ServerAPIAuthenticator, logger: Logger, performanceTest: PerformanceTestSettings = .standard) {
        self.engine = engine
        self.store = RetentionMessagingStore(engine: engine)
        self.authenticator = authenticator
        self.logger = logger
        self.performanceTestSettings = performanceTest
    }

    func add(to router: Router<StoreRequestContext>) {
        let messaging = router.group("inApps/v1/messaging")
        messaging.put("image/:imageIdentifier") { request, context in
            var request = request
            let bytes = try? await request.collectBody(upTo: Self.maximumImageBytes)
            return try await respond(to: request) { bundleID in
                let id = try identifier(context.parameters.get("imageIdentifier"), naming: "image")
                let size: RetentionMessagingStore.ImageSize
                if let text = request.uri.queryParameters["imageSize"] {
                    guard let value = RetentionMessagingStore.ImageSize(rawValue: String(text)) else { throw ServerAPIError.badImageSize }
                    size = value
                } else {
                    size = .fullSize
                }
                guard let bytes else { throw ServerAPIError.invalidImage("The upload is larger than 32 MB.") }
                if let problem = Self.imageProblem(Array(bytes.readableBytesView), size: size) { throw ServerAPIError.invalidImage(problem) }
                try await store.addImage(id, size: size, bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.delete("image/:imageIdentifier") { request, context in
            try await respond(to: request) { bundleID in
                try await store.deleteImage(try identifier(context.parameters.get("imageIdentifier"), naming: "image"), bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.get("image/list") { request, _ in
            try await respond(to: request) { bundleID in
                GetImageListResponse(imageIdentifiers: try await store.images(bundleID: bundleID).map { image in
                    GetImageListResponse.Item(imageIdentifier: image.id.uuidString.lowercased(), imageState: image.state.rawValue, imageSize: image.size.rawValue)
                })
            }
        }
        messaging.put("message/:messageIdentifier") { request, context in
            let body = try? await request.decode(as: UploadMessageRequestBody.self, context: context)
            return try await respond(to: request) { bundleID in
                let id = try identifier(context.parameters.get("messageIdentifier"), naming: "message")
                try await store.uploadMessage(try Self.messageUpload(id, body), bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.delete("message/:messageIdentifier") { request, context in
            try await respond(to: request) { bundleID in
                try await store.deleteMessage(try identifier(context.parameters.get("messageIdentifier"), naming: "message"), bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.get("message/list") { request, _ in
            try await respond(to: request) { bundleID in
                GetMessageListResponse(messageIdentifiers: try await store.messages(bundleID: bundleID).map { message in
                    GetMessageListResponse.Item(messageIdentifier: message.id.uuidString.lowercased(), messageState: message.state.rawValue)
                })
            }
        }
        messaging.put("default/:productId/:locale") { request, context in
            let body = try? await request.decode(as: DefaultConfigurationRequest.self, context: context)
            return try await respond(to: request) { bundleID in
                let (productID, locale) = try await productAndLocale(context)
                guard let text = body?.messageIdentifier else { throw ServerAPIError.badRequest("Send {\"messageIdentifier\": \"…\"}.") }
                try await store.configureDefault(try identifier(text, naming: "message"), productID: productID, locale: locale, bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.get("default/:productId/:locale") { request, context in
            try await respond(to: request) { bundleID in
                let (productID, locale) = try await productAndLocale(context)
                guard let id = try await store.defaultMessage(productID: productID, locale: locale, bundleID: bundleID) else {
                    throw ServerAPIError.defaultMessageNotFound
                }
                return DefaultConfigurationResponse(messageIdentifier: id.uuidString.lowercased())
            }
        }
        messaging.delete("default/:productId/:locale") { request, context in
            try await respond(to: request) { bundleID in
                let (productID, locale) = try await productAndLocale(context)
                try await store.deleteDefault(productID: productID, locale: locale, bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.put("realtime/url") { request, context in
            let body = try? await request.decode(as: RealtimeURLBody.self, context: context)
            return try await respond(to: request) { bundleID in
                guard let text = body?.realtimeURL, text.count <= 256, let url = URL(string: text),
                      ["https", "http"].contains(url.scheme?.lowercased() ?? ""), !(url.host ?? "").isEmpty
                else { throw ServerAPIError.badRealtimeURL }
                try await store.setRealtimeURL(url, bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.get("realtime/url") { request, _ in
            try await respond(to: request) { bundleID in
                guard let url = try await store.realtimeURL(bundleID: bundleID) else { throw ServerAPIError.realtimeURLNotFound }
                return RealtimeURLBody(realtimeURL: url.absoluteString)
            }
        }
        messaging.delete("realtime/url") { request, _ in
            try await respond(to: request) { bundleID in
                try await store.setRealtimeURL(nil, bundleID: bundleID)
                return EmptyResponse()
            }
        }
        messaging.post("performanceTest") { request, context in
            let body = try? await request.decode(as: PerformanceTestRequest.self, context: context)
            return try await respond(to: request) { bundleID in
                try await initiatePerformanceTest(body, bundleID: bundleID)
            }
        }
        messaging.get("performanceTest/result/:requestId") { request, context in
            try await respond(to: request) { bundleID in
                guard let id = context.parameters.get("requestId").flatMap(UUID.init(uuidString:)) else { throw ServerAPIError.invalidRequestID }
                guard let run = await store.performanceTest(id, bundleID: bundleID) else { throw ServerAPIError.performanceTestRunNotFound }
                return PerformanceTestResultResponse(run)
            }
        }
        addReviewRoutes(to: router)
    }

    /// ``ControlOperation/setImageReviewState`` and ``ControlOperation/setMessageReviewState``, with `{"state":
    /// "PENDING" | "APPROVED" | "REJECTED"}`: App Review's verdict, which the store otherwise gives at
    /// once (`APPROVED`). Unauthenticated, like the rest of the control API.
    private func addReviewRoutes(to router: Router<StoreRequestContext>) {
        for (kind, operation) in [("images", ControlOperation.setImageReviewState), ("messages", .setMessageReviewState)] {
            router.on(operation) { request, context -> Response in
                let body = try? await request.decode(as: RetentionReviewRequest.self, context: context)
                let bundleID = context.parameters.get("bundleId") ?? ""
                let text = context.parameters.get("identifier") ?? ""
                guard let state = body?.state.flatMap(RetentionMessagingStore.ReviewState.init(rawValue:)) else {
                    return try Self.json(["error": "Send {\"state\": \"PENDING\"}, \"APPROVED\" or \"REJECTED\"."], status: .badRequest)
                }
                guard let id = UUID(uuidString: text) else {
                    return try Self.json(["error": "\"\(text)\" is not a UUID; use the identifier the image or message was uploaded with."], status: .badRequest)
                }
                let found: Bool
                if kind == "images" {
                    found = try await store.setImageState(state, of: id, bundleID: bundleID)
                } else {
                    found = try await store.setMessageState(state, of: id, bundleID: bundleID)
                }
                guard found else {
                    return try Self.json(["error": "App \(bundleID) has no \(kind.dropLast()) \(id.uuidString.lowercased()); list them with the Retention Messaging API."], status: .notFound)
                }
                return try Self.json(["state": state.rawValue], status: .ok)
            }
        }
    }

    /// Starts a performance test of the app's Get Retention Message URL with the subscription of the request.
    private func initiatePerformanceTest(_ body: PerformanceTestRequest?, bundleID: String) async throws -> PerformanceTestResponse {
        guard let text = body?.originalTransactionId else { throw ServerAPIError.invalidPerformanceTestRequest }
        guard let id = UInt64(text) else { throw ServerAPIError.invalidTransactionID }
        guard let record = try? await engine.transaction(id), record.bundleID == bundleID, record.state.isCompleted else {
            throw ServerAPIError.transactionIDNotFound
        }
        guard record.origin != .familyShare else { throw ServerAPIError.familyTransactionNotSupported }
        guard record.id == record.originalID else { throw ServerAPIError.notOriginalTransactionID }
        guard record.productType == .autoRenewable else { throw ServerAPIError.invalidTransactionType }
        guard let target = try await store.realtimeURL(bundleID: bundleID) else { throw ServerAPIError.realtimeURLNotFound }
        let productID = (try? await engine.subscription(forTransaction: id))?.productID ?? record.productID
        let payload = RealtimeRequestPayload(
            originalTransactionId: text, appAppleId: await engine.appAppleID(bundleID: bundleID), productId: productID,
            userLocale: await engine.settings.locale.replacingOccurrences(of: "_", with: "-"), requestIdentifier: UUID(),
            signedDate: engine.clock.now(), environment: engine.environment.rawValue
        )
        let test = PerformanceTest(
            id: UUID(), target: target, settings: performanceTestSettings, payload: payload,
            signer: JWSSigner(certificateAuthority: try engine.signer.certificateAuthority), clock: engine.clock
        )
        try await store.startPerformanceTest(test, bundleID: bundleID)
        logger.info("performance test \(test.id) of \(target.absoluteString) for \(bundleID)")
        return PerformanceTestResponse(config: PerformanceTestConfig(performanceTestSettings), requestId: test.id.uuidString.lowercased())
    }

    /// The product and locale in the path, checked: an auto-renewable subscription of the catalog, and a locale short
    /// code.
    private func productAndLocale(_ context: StoreRequestContext) async throws -> (String, String) {
        let productID = context.parameters.get("productId") ?? ""
        guard await engine.catalog.product(productID)?.subscription != nil else { throw ServerAPIError.notSubscriptionProduct(productID) }
        let locale = context.parameters.get("locale") ?? ""
        guard Self.isLocaleShortCode(locale) else { throw ServerAPIError.invalidLocale }
        return (productID, locale)
    }

    /// The UUID in the path.
    private func identifier(_ text: String?, naming kind: String) throws -> UUID {
        guard let text, let id = UUID(uuidString: text) else { throw ServerAPIError.badRequest("The \(kind) identifier \"\(text ?? "")\" is not a UUID.") }
        return id
    }

    /// Reads an Upload Message body into what the store checks; fields Apple requires and values it does not know
    /// are refused with 4000000.
    private static func messageUpload(_ id: UUID, _ body: UploadMessageRequestBody?) throws -> RetentionMessagingStore.MessageUpload {
        guard let body else { throw ServerAPIError.badRequest("The body is not an UploadMessageRequestBody: send header and body, optionally image, headerPosition and bulletPoints.") }
        guard let header = body.header, let text = body.body else { throw ServerAPIError.badRequest("A message needs both header and body text.") }
        let aboveImage: Bool
        switch body.headerPosition {
        case nil, "ABOVE_BODY": aboveImage = false
        case "ABOVE_IMAGE": aboveImage = true
        case let other?: throw ServerAPIError.badRequest("headerPosition \"\(other)\" is not ABOVE_BODY or ABOVE_IMAGE.")
        }
        var image: (id: UUID, altText: String)?
        if let part = body.image {
            guard let text = part.imageIdentifier, let imageID = UUID(uuidString: text), let altText = part.altText else {
                throw ServerAPIError.badRequest("An image needs an imageIdentifier (a UUID) and altText.")
            }
            image = (imageID, altText)
        }
        let points = try (body.bulletPoints ?? []).map { point in
            guard let text = point.text, let idText = point.imageIdentifier, let imageID = UUID(uuidString: idText), let altText = point.altText else {
                throw ServerAPIError.badRequest("A bullet point needs text, an imageIdentifier (a UUID) and altText.")
            }
            return RetentionMessagingStore.MessageUpload.BulletPoint(text: text, imageID: imageID, altText: altText)
        }
        return RetentionMessagingStore.MessageUpload(id: id, header: header, body: text, image: image, headerAboveImage: aboveImage, bulletPoints: points)
    }

    /// Whether `text` has the form of an App Store locale short code: a lowercase language (`ja`), optionally a
    /// region (`en-US`) or a script (`zh-Hans`). The store checks the form, not Apple's list, which grows.
    static func isLocaleShortCode(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), (2...3).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && $0.isLowercase }) else { return false }
        guard parts.count == 2 else { return true }
        let tail = parts[1]
        let isRegion = tail.count == 2 && tail.allSatisfy { $0.isASCII && $0.isUppercase }
        let isScript = tail.count == 4 && tail.first?.isUppercase == true && tail.allSatisfy { $0.isASCII && $0.isLetter } && tail.dropFirst().allSatisfy(\.isLowercase)
        return isRegion || isScript
    }

    /// Why `bytes` are not an image Apple accepts, or `nil` when they are: a whole PNG (signature, `IHDR` first, chunks
    /// up to `IEND`) without transparency (no alpha channel, no `tRNS`), and a full-size image 3840 pixels wide and 160
    /// to 2160 high. Apple does not give bullet-point dimensions here, so those are not checked; nor are checksums or
    /// the pixel data.
    static func imageProblem(_ bytes: [UInt8], size: RetentionMessagingStore.ImageSize) -> String? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return "The upload is not a PNG file; upload a PNG (image/png)." }
        func word(_ offset: Int) -> Int {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        var offset = 8
        var header: (width: Int, height: Int, colorType: UInt8)?
        var ended = false
        while !ended, offset + 12 <= bytes.count {
            let length = word(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard length <= bytes.count - offset - 12 else { return "The PNG is truncated: chunk \(type) runs past the end of the file." }
            if header == nil {
                guard type == "IHDR", length == 13 else { return "The PNG does not start with its IHDR header." }
                header = (word(offset + 8), word(offset + 12), bytes[offset + 17])
            }
            if type == "tRNS" { return "The PNG has transparency (a tRNS chunk); upload an opaque image." }
            ended = type == "IEND"
            offset += 12 + length
        }
        guard let header, ended else { return "The PNG is truncated: it has no IEND chunk." }
        if header.colorType == 4 || header.colorType == 6 { return "The PNG has an alpha channel; upload an opaque image." }
        if size == .fullSize, header.width != 3840 || !(160...2160).contains(header.height) {
            return "A FULL_SIZE image is 3840 pixels wide and 160 to 2160 pixels high; this one is \(header.width) × \(header.height)."
        }
        return nil
    }

    /// Authenticates the request, runs `body` for the token's app, and answers its value as JSON, or Apple's error.
    private func respond(to request: Request, _ body: (String) async throws -> some Encodable) async throws -> Response {
        try await ServerAPIResponder(authenticator: authenticator, logger: logger).respond(to: request, body)
    }

    private static func json(_ value: some Encodable, status: HTTPResponse.Status) throws -> Response {
        try ServerAPIResponder.json(value, status: status)
    }
}
