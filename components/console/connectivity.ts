"use client";

import { createContext, useContext } from "react";

/** Whether the API answers, and whether the live event stream is connected. */
export type Connectivity = { isReachable: boolean; isLive: boolean; setLive: (isLive: boolean) => void };

export const ConnectivityContext = createContext<Connectivity>({ isReachable: true, isLive: false, setLive: () => {} });

export const useConnectivity = () => useContext(ConnectivityContext);
