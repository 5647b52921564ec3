// The check both services (the broker, the controller) make on --listen before binding.
#ifndef POLLEN_NET_LISTEN_ENDPOINT_H_
#define POLLEN_NET_LISTEN_ENDPOINT_H_

#include <string>

#include "base/status.h"

namespace pollen::net {

// libzmq takes tcp://host:99999 as port 34463 (it wraps): a tcp endpoint's port must be *
// or 1 to 65535. Other transports (ipc://, inproc://) pass; libzmq's bind checks the rest.
Status CheckTcpPort(const std::string& endpoint);

}  // namespace pollen::net

#endif  // POLLEN_NET_LISTEN_ENDPOINT_H_
