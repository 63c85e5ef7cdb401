// An NVTX injection library for tests: loaded by NVTX3 from NVTX_INJECTION64_PATH, it writes every
// range push and pop to the file named by AMPBENCH_NVTX_RANGE_LOG, one line each:
//   <pid> <tid> push <domain> <message>
//   <pid> <tid> pop <domain>
// Each line is one append-mode write(), so a parent and its cell processes can share the file.
// Only InitializeInjectionNvtx2 is exported (the target builds with hidden visibility).
#include <fcntl.h>
#include <nvtx3/nvToolsExt.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

int log_fd = -1;
const std::string kDefaultDomain = "(default)";

void write_line(const std::string& event) {
  const std::string line = std::to_string(getpid()) + " " + std::to_string(syscall(SYS_gettid)) + " " + event + "\n";
  // A short write would only garble this test log; the test then fails on the malformed line.
  (void)!write(log_fd, line.data(), line.size());
}

// NVTX lets the injection choose what a domain handle is: here, the domain's name.
const std::string& domain_name(nvtxDomainHandle_t domain) {
  return domain == nullptr ? kDefaultDomain : *reinterpret_cast<const std::string*>(domain);
}

std::string message_of(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return "(no attributes)";
  if (attributes->messageType == NVTX_MESSAGE_TYPE_ASCII && attributes->message.ascii != nullptr)
    return attributes->message.ascii;
  return "(message type " + std::to_string(attributes->messageType) + ")";
}

nvtxDomainHandle_t NVTX_API domain_create(const char* name) {
  // Domains live as long as the process, as NVTX expects of its handles.
  return reinterpret_cast<nvtxDomainHandle_t>(new std::string(name != nullptr ? name : ""));
}

int NVTX_API domain_range_push(nvtxDomainHandle_t domain, const nvtxEventAttributes_t* attributes) {
  write_line("push " + domain_name(domain) + " " + message_of(attributes));
  return 0;
}

int NVTX_API domain_range_pop(nvtxDomainHandle_t domain) {
  write_line("pop " + domain_name(domain));
  return 0;
}

int NVTX_API range_push(const char* message) {
  write_line("push " + kDefaultDomain + " " + (message != nullptr ? message : ""));
  return 0;
}

int NVTX_API range_push_ex(const nvtxEventAttributes_t* attributes) {
  write_line("push " + kDefaultDomain + " " + message_of(attributes));
  return 0;
}

int NVTX_API range_pop() {
  write_line("pop " + kDefaultDomain);
  return 0;
}

template <typename Function>
bool install(const NvtxExportTableCallbacks& callbacks, NvtxCallbackModule module, unsigned int id, Function function) {
  NvtxFunctionTable table = nullptr;
  unsigned int size = 0;
  if (callbacks.GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr || id >= size) return false;
  *table[id] = reinterpret_cast<NvtxFunctionPointer>(function);
  return true;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table) {
  const char* path = std::getenv("AMPBENCH_NVTX_RANGE_LOG");
  if (path == nullptr) return 0;  // NVTX then stays a no-op
  log_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (log_fd < 0) return 0;
  const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  return install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, domain_create) &&
                 install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, domain_range_push) &&
                 install(*callbacks, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, domain_range_pop) &&
                 install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, range_push) &&
                 install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, range_push_ex) &&
                 install(*callbacks, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, range_pop)
             ? 1
             : 0;
}
