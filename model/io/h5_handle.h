#pragma once
// Owning wrapper for an HDF5 identifier (file, group, dataset, type, space, plist, attr).

#include <hdf5.h>

#include <utility>

namespace spanscope::model::io {

class H5Handle
{
public:
    H5Handle() = default;
    explicit H5Handle(hid_t id) : m_id(id) {}
    H5Handle(const H5Handle&) = delete;
    H5Handle& operator=(const H5Handle&) = delete;
    H5Handle(H5Handle&& other) noexcept : m_id(std::exchange(other.m_id, H5I_INVALID_HID)) {}
    H5Handle& operator=(H5Handle&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_id = std::exchange(other.m_id, H5I_INVALID_HID);
        }
        return *this;
    }
    ~H5Handle() { reset(); }

    hid_t get() const { return m_id; }
    bool valid() const { return m_id >= 0; }
    explicit operator bool() const { return valid(); }
    void reset()
    {
        if (m_id >= 0)
            H5Idec_ref(m_id);
        m_id = H5I_INVALID_HID;
    }

private:
    hid_t m_id = H5I_INVALID_HID;
};

} // namespace spanscope::model::io
