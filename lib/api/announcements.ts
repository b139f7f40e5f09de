import { defineOperation } from "../http/operation";
import {
  announcementObject,
  announcementParams,
  announcementSummary,
  listAnnouncementsQuery,
} from "../schemas/announcements";
import { pagination } from "../schemas/common";

const tag = "announcements";

export const listAnnouncements = defineOperation({
  id: "listAnnouncements",
  method: "GET",
  path: "/api/announcements",
  tag,
  summary: "Announcements, newest first unless order_by=asc (cloud edition)",
  access: { kind: "public" },
  query: listAnnouncementsQuery,
  response: announcementSummary,
  isList: true,
  isCloudOnly: true,
});

export const listAnnouncementEntries = defineOperation({
  id: "listAnnouncementEntries",
  method: "GET",
  path: "/api/announcements/entries",
  tag,
  summary:
    "Whole announcements (uuid, title, Markdown content, date), newest first: the console's modal and history (cloud edition)",
  access: { kind: "public" },
  query: pagination,
  response: announcementObject,
  isList: true,
  isCloudOnly: true,
});

export const getAnnouncement = defineOperation({
  id: "getAnnouncement",
  method: "GET",
  path: "/api/announcements/{uuid}",
  tag,
  summary: "An announcement with its Markdown content (cloud edition)",
  access: { kind: "public" },
  params: announcementParams,
  response: announcementObject,
  isCloudOnly: true,
  errors: { 404: "no such announcement" },
});

export const announcementOperations = [listAnnouncements, listAnnouncementEntries, getAnnouncement];
