//! The browser's IndexedDB as a small string store: the workspace lives here, where the quota is
//! the disk's share rather than localStorage's ~5 MB. Each call opens the database, does one thing
//! in one transaction and reports when the transaction is complete (a write is on disk then).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{IdbDatabase, IdbOpenDbRequest, IdbRequest, IdbTransaction, IdbTransactionMode};

const DATABASE: &str = "dynalab";
const STORE: &str = "workspace";

/// Why a call failed, in words for a notice.
fn reason(value: &JsValue) -> String {
    value
        .dyn_ref::<web_sys::DomException>()
        .map(|e| format!("{}: {}", e.name(), e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "IndexedDB refused".to_string())
}

/// A promise that settles when `request` succeeds (with its result) or fails.
fn settled(request: &IdbRequest) -> js_sys::Promise {
    let request = request.clone();
    js_sys::Promise::new(&mut |resolve, reject| {
        let done = request.clone();
        let on_success = Closure::once_into_js(move || {
            let _ = resolve.call1(&JsValue::NULL, &done.result().unwrap_or(JsValue::UNDEFINED));
        });
        let failed = request.clone();
        let on_error = Closure::once_into_js(move || {
            let error = failed.error().ok().flatten().map_or(JsValue::from_str("IndexedDB error"), JsValue::from);
            let _ = reject.call1(&JsValue::NULL, &error);
        });
        request.set_onsuccess(Some(on_success.unchecked_ref()));
        request.set_onerror(Some(on_error.unchecked_ref()));
    })
}

/// A promise that settles when `transaction` completes or fails.
fn committed(transaction: &IdbTransaction) -> js_sys::Promise {
    let transaction = transaction.clone();
    js_sys::Promise::new(&mut |resolve, reject| {
        let on_complete = Closure::once_into_js(move || {
            let _ = resolve.call0(&JsValue::NULL);
        });
        let aborted = reject.clone();
        let on_error = Closure::once_into_js(move || {
            let _ = reject.call1(&JsValue::NULL, &JsValue::from_str("the transaction failed"));
        });
        let on_abort = Closure::once_into_js(move || {
            let _ = aborted.call1(&JsValue::NULL, &JsValue::from_str("the transaction was aborted (storage full?)"));
        });
        transaction.set_oncomplete(Some(on_complete.unchecked_ref()));
        transaction.set_onerror(Some(on_error.unchecked_ref()));
        transaction.set_onabort(Some(on_abort.unchecked_ref()));
    })
}

async fn open() -> Result<IdbDatabase, String> {
    // The page's or the worker's: both scopes have one.
    let factory: web_sys::IdbFactory = js_sys::Reflect::get(&js_sys::global(), &"indexedDB".into())
        .ok()
        .filter(|f| !f.is_undefined() && !f.is_null())
        .ok_or("this browser gives no IndexedDB")?
        .unchecked_into();
    let request: IdbOpenDbRequest = factory.open_with_u32(DATABASE, 1).map_err(|e| reason(&e))?;
    let upgrading = request.clone();
    let on_upgrade = Closure::once_into_js(move || {
        if let Ok(result) = upgrading.result() {
            let database: IdbDatabase = result.unchecked_into();
            if !database.object_store_names().contains(STORE) {
                let _ = database.create_object_store(STORE);
            }
        }
    });
    request.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    let database = JsFuture::from(settled(&request)).await.map_err(|e| reason(&e))?;
    Ok(database.unchecked_into())
}

fn transaction(database: &IdbDatabase, mode: IdbTransactionMode) -> Result<IdbTransaction, String> {
    database.transaction_with_str_and_mode(STORE, mode).map_err(|e| reason(&e))
}

/// The text stored under `key`, if any.
pub async fn get(key: &str) -> Result<Option<String>, String> {
    let database = open().await?;
    let transaction = transaction(&database, IdbTransactionMode::Readonly)?;
    let store = transaction.object_store(STORE).map_err(|e| reason(&e))?;
    let request = store.get(&JsValue::from_str(key)).map_err(|e| reason(&e))?;
    let value = JsFuture::from(settled(&request)).await.map_err(|e| reason(&e))?;
    database.close();
    Ok(value.as_string())
}

/// Stores `value` under `key`; returns once the write is committed.
pub async fn put(key: &str, value: &str) -> Result<(), String> {
    let database = open().await?;
    let transaction = transaction(&database, IdbTransactionMode::Readwrite)?;
    let store = transaction.object_store(STORE).map_err(|e| reason(&e))?;
    store.put_with_key(&JsValue::from_str(value), &JsValue::from_str(key)).map_err(|e| reason(&e))?;
    let done = JsFuture::from(committed(&transaction)).await.map(|_| ()).map_err(|e| reason(&e));
    database.close();
    done
}

/// Removes `key`; returns once committed.
pub async fn delete(key: &str) -> Result<(), String> {
    let database = open().await?;
    let transaction = transaction(&database, IdbTransactionMode::Readwrite)?;
    let store = transaction.object_store(STORE).map_err(|e| reason(&e))?;
    store.delete(&JsValue::from_str(key)).map_err(|e| reason(&e))?;
    let done = JsFuture::from(committed(&transaction)).await.map(|_| ()).map_err(|e| reason(&e));
    database.close();
    done
}
